-- The integration's name as a person reads it. `organization_name` is the end user's organisation
-- as the upstream last reported it (end_user.organization_name of the integration's details and
-- webhooks; end_user_organization_name of the connect activation); `display_name` is the name an
-- operator gave the integration, null to follow the upstream's. The API's display_name is the
-- operator's, else the upstream's.
alter table integrations add column organization_name text;
alter table integrations add column display_name text;
