-- SqlTest: names a fragment Sql does not know.
SELECT ${noSuchFragment} FROM segment_ledger_item
