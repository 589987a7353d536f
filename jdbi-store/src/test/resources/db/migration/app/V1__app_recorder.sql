-- An application's own first migration, beside Segment Ledger's V1 (FlywayMigrationTest).
CREATE TABLE app_recorder (
  id   bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  name text NOT NULL
);
