-- SqlTest: a comment line, a blank line and indented lines, with every fragment.

SELECT ${columns} FROM segment_ledger_item
  -- an indented comment, with a colon: and a quote ' that must not reach Jdbi's parser
  WHERE (${insertColumns}) IS NOT NULL
    AND ${noLease}
