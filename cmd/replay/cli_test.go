package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runCLI runs the real entry point in this process with stdout and stderr captured in files
// (not pipes, so a command that writes more than a pipe holds cannot block) and no stdin.
func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	dir := t.TempDir()
	outF, err := os.Create(filepath.Join(dir, "stdout"))
	if err != nil {
		t.Fatal(err)
	}
	errF, err := os.Create(filepath.Join(dir, "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	code = run(args, cli{stdin: strings.NewReader(""), stdout: outF, stderr: errF})
	outF.Close()
	errF.Close()
	o, _ := os.ReadFile(outF.Name())
	e, _ := os.ReadFile(errF.Name())
	return code, string(o), string(e)
}

// TestNoDirectStdio: only main names os.Stdin, os.Stdout and os.Stderr; every subcommand writes
// to the streams it is handed (cli), so that runCLI's capture holds all it prints.
func TestNoDirectStdio(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			if fn, ok := decl.(*ast.FuncDecl); ok && fn.Name.Name == "main" && fn.Recv == nil {
				continue
			}
			ast.Inspect(decl, func(n ast.Node) bool {
				sel, ok := n.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				if pkg, ok := sel.X.(*ast.Ident); ok && pkg.Name == "os" &&
					(sel.Sel.Name == "Stdout" || sel.Sel.Name == "Stderr" || sel.Sel.Name == "Stdin") {
					t.Errorf("%s: os.%s outside main: take the stream from the command's cli", fset.Position(sel.Pos()), sel.Sel.Name)
				}
				return true
			})
		}
	}
}
