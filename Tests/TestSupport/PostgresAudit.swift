/// An audit of what a PostgreSQL mirror writes, kept by the database itself: a trigger on the mirror's table `T`
/// records every row inserted or updated, `(name, update_time)` in order, into `T_audit`. The exactly-once checks:
/// no version written twice, and no version written after a newer one of the same document.
package enum PostgresAudit {
    /// The SQL that creates `T_audit` and the trigger on `table` (after the mirror made `table`).
    package static func install(on table: String) -> String {
        """
        CREATE TABLE \(table)_audit (seq bigserial PRIMARY KEY, name text COLLATE "C" NOT NULL,
            update_time text COLLATE "C" NOT NULL);
        CREATE FUNCTION \(table)_audit_row() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            INSERT INTO \(table)_audit (name, update_time) VALUES (NEW.name, NEW.update_time);
            RETURN NEW;
        END $$;
        CREATE TRIGGER \(table)_audit AFTER INSERT OR UPDATE ON \(table)
            FOR EACH ROW EXECUTE FUNCTION \(table)_audit_row();
        """
    }

    /// The query giving, in one row: the versions written, those written more than once, and those written after a
    /// newer version of the same document (0 and 0 when each change took effect once and in order).
    package static func check(_ table: String) -> String {
        """
        SELECT count(*),
            count(*) - count(DISTINCT (name, update_time)),
            count(*) FILTER (WHERE update_time < previous)
        FROM (SELECT name, update_time, max(update_time) OVER (PARTITION BY name ORDER BY seq
            ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS previous FROM \(table)_audit) AS written
        """
    }
}
