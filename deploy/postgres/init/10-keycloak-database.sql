-- Runs once, when the compose Postgres volume is first created: Keycloak keeps its realms, users
-- and sessions in a database of its own beside Hirebridge's (POSTGRES_DB).
CREATE DATABASE keycloak;
