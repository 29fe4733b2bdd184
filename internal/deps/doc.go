// Package deps holds the test of the project's import rules: which of its packages may import
// which, written as one table (deps_test.go), in the style of Go's own go/build deps test. Data
// flows one way through the stages (ingest → synth → scheduler → client → results → analysis),
// and a new backwards edge fails the build's tests instead of waiting for a reviewer. Beside it,
// funclen_test.go holds every function of the product packages to 80 lines (go/ast, the longest
// printed). It has no code of its own and nothing may import it.
package deps
