import Storage

extension TimelineRebuild {
    /// The statements of a rebuild that each dialect spells its own way: the temporary work
    /// tables of the following pass, the join that fixes SQLite's loop order, and emptying a
    /// timeline.
    package struct Spelling {
        package let dialect: SQLDialect

        package init(_ dialect: SQLDialect) { self.dialect = dialect }

        /// A temporary table's qualified name: SQLite's `temp` schema, PostgreSQL's `pg_temp`
        /// (the session's own schema, which a plain table of the same name cannot shadow).
        package func temporary(_ table: String) -> String {
            switch dialect {
            case .sqlite: return "temp." + table
            case .postgres: return "pg_temp." + table
            }
        }

        /// `CREATE TEMP TABLE` whose first column, `key`, is the integer primary key. On SQLite it
        /// must be spelled `INTEGER PRIMARY KEY` to be the rowid (no second B-tree); on
        /// PostgreSQL it is a BIGINT, and the table goes at COMMIT (the pass runs in one
        /// transaction; a failed one leaves nothing either).
        package func createTemporaryTable(_ table: String, key: String, columns: String) -> SQL {
            switch dialect {
            case .sqlite: return SQL(unsafeSQL: "CREATE TEMP TABLE \(table) (\(key) INTEGER PRIMARY KEY, \(columns))")
            case .postgres: return SQL(unsafeSQL: "CREATE TEMP TABLE \(table) (\(key) BIGINT PRIMARY KEY, \(columns)) ON COMMIT DROP")
            }
        }

        /// An index of a temporary table (SQLite names the index's schema, PostgreSQL the table's).
        package func createTemporaryIndex(_ name: String, on table: String, columns: String) -> SQL {
            switch dialect {
            case .sqlite: return SQL(unsafeSQL: "CREATE INDEX temp.\(name) ON \(table) (\(columns))")
            case .postgres: return SQL(unsafeSQL: "CREATE INDEX \(name) ON pg_temp.\(table) (\(columns))")
            }
        }

        /// What the planner needs after a temporary table is filled: autovacuum never analyzes
        /// temporary tables, and without statistics PostgreSQL guesses their size and may join
        /// millions of rows by nested loops. SQLite plans from its indexes alone.
        package func analyzeTemporary(_ table: String) -> SQL? {
            switch dialect {
            case .sqlite: return nil
            case .postgres: return SQL(unsafeSQL: "ANALYZE pg_temp.\(table)")
            }
        }

        /// A join that keeps the order the tables are written in: SQLite's CROSS JOIN makes
        /// them the loops' order (the reader-by-reader order of the writes); PostgreSQL has no
        /// CROSS JOIN with ON, and its planner, given statistics, chooses well.
        package var orderedJoin: String {
            switch dialect {
            case .sqlite: return "CROSS JOIN"
            case .postgres: return "JOIN"
            }
        }

        /// The ORDER BY that makes the following pass write in the table's key order. SQLite's
        /// CROSS JOINs produce that order already (reader by reader), and a sort would only cost.
        /// PostgreSQL sorts by the reader only where its nested loops do not (an incremental
        /// sort): 6.3 million rows took 36 s written out of order (random inserts into both
        /// indexes), 17 s in order.
        package var followingKeyOrder: String {
            switch dialect {
            case .sqlite: return ""
            case .postgres: return "ORDER BY c.reader_seq, s.created_at, s.activity_seq"
            }
        }

        /// Empties a timeline: PostgreSQL's DELETE would leave millions of dead rows for vacuum
        /// and take as long as writing them; TRUNCATE drops the files (in the transaction, so a
        /// rollback brings them back). SQLite's DELETE without WHERE is already a truncation.
        package func empty(_ table: String) -> SQL {
            switch dialect {
            case .sqlite: return SQL(unsafeSQL: "DELETE FROM \(table)")
            case .postgres: return SQL(unsafeSQL: "TRUNCATE \(table)")
            }
        }
    }
}
