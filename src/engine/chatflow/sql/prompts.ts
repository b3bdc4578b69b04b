// The prompts LangChain's SqlDatabaseChain (which Flowise's sqlDatabaseChain runs) picks by dialect,
// word for word: the model sees what it would see under Flowise. Variables: {dialect}, {top_k},
// {table_info}, {input} (the question followed by "\nSQLQuery:", and later the query and its result).
import type { SqlDialect } from "../../../providers/sql/types";

const FORMAT = `Use the following format:

Question: "Question here"
SQLQuery: "SQL Query to run"
SQLResult: "Result of the SQLQuery"
Answer: "Final answer here"

Only use the following tables:
{table_info}

Question: {input}`;

const expert = (name: string, quoting = 'double quotes (")') =>
  `You are a ${name} expert. Given an input question, first create a syntactically correct ${name} query to ` +
  `run, then look at the results of the query and return the answer to the input question.
Unless the user specifies in the question a specific number of examples to obtain, query for at most {top_k} ` +
  `results using the LIMIT clause as per ${name}. You can order the results to return the most informative data in the database.
Never query for all columns from a table. You must query only the columns that are needed to answer the question. ` +
  `Wrap each column name in ${quoting} to denote them as delimited identifiers.
Pay attention to use only the column names you can see in the tables below. Be careful to not query for columns ` +
  `that do not exist. Also, pay attention to which column is in which table.

${FORMAT}`;

export const SQL_PROMPTS: Record<SqlDialect, string> = {
  sqlite: expert("SQLite"),
  postgres: expert("PostgreSQL"),
  mysql: expert("MySQL", "backticks (`)"),
};

/** LangChain stops the model at the result line it would otherwise make up. */
export const SQL_STOP = ["\nSQLResult:"];

/** LangChain's default top_k. */
export const DEFAULT_TOP_K = 5;
/** LangChain's default sample rows per table. */
export const DEFAULT_SAMPLE_ROWS = 3;
