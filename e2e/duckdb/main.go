// Command duckdb checks that DuckDB reads a results file: it prints
// `SELECT count(*), count(DISTINCT request_id) FROM read_parquet(?)` for FILE.parquet as
// "rows N distinct_request_ids M". It lives in its own module so replay itself never links
// DuckDB (cgo, a large static library); e2e/duckdb/e2e.sh builds it and the kill test
// (cmd/replay TestRunKilled, with REPLAY_DUCKDB naming the binary) runs it.
//
// From the repository's root (a module of its own, so `go run ./e2e/duckdb` does not reach
// it; go -C runs it inside e2e/duckdb, so give an absolute path):
//
//	go -C e2e/duckdb run . "$PWD/out/requests.parquet"
package main

import (
	"database/sql"
	"fmt"
	"os"

	_ "github.com/marcboeker/go-duckdb"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: duckdb FILE.parquet")
		os.Exit(2)
	}
	rows, distinct, err := count(os.Args[1])
	if err != nil {
		fmt.Fprintf(os.Stderr, "duckdb: %s: %v\n", os.Args[1], err)
		os.Exit(1)
	}
	fmt.Printf("rows %d distinct_request_ids %d\n", rows, distinct)
}

// count asks DuckDB for the file's row count and distinct request ids.
func count(path string) (rows, distinct int64, err error) {
	db, err := sql.Open("duckdb", "")
	if err != nil {
		return 0, 0, fmt.Errorf("opening DuckDB: %w", err)
	}
	defer db.Close()
	err = db.QueryRow(`SELECT count(*), count(DISTINCT request_id) FROM read_parquet(?)`, path).Scan(&rows, &distinct)
	if err != nil {
		return 0, 0, fmt.Errorf("read_parquet: %w", err)
	}
	return rows, distinct, nil
}
