-- The append-only role: what a Feltline server (and `feltline project`) may
-- do in its store's schema. It reads and appends events, and never changes
-- or removes one: UPDATE, DELETE and TRUNCATE on the events table are not
-- granted (and revoked, in case they were). The projector's views are read
-- models, rebuilt from the events, so it may change those.
--
-- Run it as the schema's owner, once the store's tables exist (start the
-- server once as the owner, see README.md), and again after adding a table:
--
--   psql -v schema=feltline -v role=feltline_server -f ops/postgres/append_only.sql
--
-- One GRANT per table, so a new table is one more line.

\set ON_ERROR_STOP on

GRANT USAGE ON SCHEMA :"schema" TO :"role";

-- The events: every stream, and the notification log (its notification_id).
REVOKE ALL ON :"schema".cardroom_events FROM :"role";
GRANT SELECT, INSERT ON :"schema".cardroom_events TO :"role";
-- Its numbers: the table's own sequence, or one per partition of the log
-- (cardroom_events_p0, ...) in a store made with several (docs/store.md).
GRANT USAGE ON ALL SEQUENCES IN SCHEMA :"schema" TO :"role";
-- The store's own settings, fixed when it was made: read only.
GRANT SELECT ON :"schema".feltline_settings TO :"role";

-- Who writes at each table (docs/store.md, "Several processes"): the
-- leases and the processes holding them change all the time; the fence
-- every append calls reads and locks the leases; every append is one call
-- of feltline_append.
GRANT SELECT, INSERT, UPDATE ON :"schema".feltline_leases TO :"role";
GRANT SELECT, INSERT, UPDATE, DELETE ON :"schema".feltline_servers TO :"role";
GRANT EXECUTE ON FUNCTION :"schema".feltline_fence(uuid[], bigint[]) TO :"role";
GRANT EXECUTE ON FUNCTION :"schema".feltline_notify() TO :"role";
GRANT EXECUTE ON FUNCTION :"schema".feltline_append(uuid[], bigint[], text, text, regclass, uuid[], bigint[], text[], bytea[]) TO :"role";

-- The projector's views and their tracking positions: read models.
GRANT SELECT, INSERT, UPDATE, DELETE ON :"schema".ledger_tracking TO :"role";
GRANT SELECT, INSERT, UPDATE, DELETE ON :"schema".ledger_entries TO :"role";
GRANT SELECT, INSERT, UPDATE, DELETE ON :"schema".ledger_balances TO :"role";
GRANT SELECT, INSERT, UPDATE, DELETE ON :"schema".ledger_seats TO :"role";
GRANT SELECT, INSERT, UPDATE, DELETE ON :"schema".ledger_players TO :"role";
GRANT SELECT, INSERT, UPDATE, DELETE ON :"schema".ledger_hands TO :"role";
GRANT SELECT, INSERT, UPDATE, DELETE ON :"schema".hand_index_tracking TO :"role";
GRANT SELECT, INSERT, UPDATE, DELETE ON :"schema".hand_tables TO :"role";
GRANT SELECT, INSERT, UPDATE, DELETE ON :"schema".hand_seats TO :"role";
GRANT SELECT, INSERT, UPDATE, DELETE ON :"schema".hand_index TO :"role";
GRANT SELECT, INSERT, UPDATE, DELETE ON :"schema".hand_players TO :"role";
GRANT SELECT, INSERT, UPDATE, DELETE ON :"schema".hand_charges TO :"role";
GRANT SELECT, INSERT, UPDATE, DELETE ON :"schema".hand_rake TO :"role";
GRANT SELECT, INSERT, UPDATE, DELETE ON :"schema".hand_ends TO :"role";
GRANT SELECT, INSERT, UPDATE, DELETE ON :"schema".hand_bets TO :"role";
GRANT SELECT, INSERT, UPDATE, DELETE ON :"schema".hand_done TO :"role";
GRANT SELECT, INSERT, UPDATE, DELETE ON :"schema".pots_tracking TO :"role";
GRANT SELECT, INSERT, UPDATE, DELETE ON :"schema".pots_hands TO :"role";
GRANT SELECT, INSERT, UPDATE, DELETE ON :"schema".pots_seats TO :"role";
GRANT SELECT, INSERT, UPDATE, DELETE ON :"schema".standings_tracking TO :"role";
GRANT SELECT, INSERT, UPDATE, DELETE ON :"schema".standings_matches TO :"role";
GRANT SELECT, INSERT, UPDATE, DELETE ON :"schema".standings_players TO :"role";
GRANT SELECT, INSERT, UPDATE, DELETE ON :"schema".standings_pending TO :"role";
GRANT SELECT, INSERT, UPDATE, DELETE ON :"schema".standings_scores TO :"role";
GRANT SELECT, INSERT, UPDATE, DELETE ON :"schema".tournaments_tracking TO :"role";
GRANT SELECT, INSERT, UPDATE, DELETE ON :"schema".tournaments_list TO :"role";
GRANT SELECT, INSERT, UPDATE, DELETE ON :"schema".tournaments_chips TO :"role";
GRANT SELECT, INSERT, UPDATE, DELETE ON :"schema".tournaments_places TO :"role";
GRANT SELECT, INSERT, UPDATE, DELETE ON :"schema".tournaments_prizes TO :"role";
