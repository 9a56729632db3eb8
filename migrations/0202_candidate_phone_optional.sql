-- Candidates synced from an upstream ATS may have no phone number. The API still requires one when
-- a client creates a candidate; a candidate without one answers without the `phone` field.
alter table candidates alter column phone drop not null;
