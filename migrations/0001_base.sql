-- Numbering: 00xx shared, 01xx token service, 02xx recruiting API, 03xx proxy, 04xx sync engine.
-- Forward-only; never edit a file that has landed. Unqualified names: the schema comes from search_path.
-- Ids use gen_random_uuid() (core since PostgreSQL 13; PGlite has it without extensions).
select gen_random_uuid();
