package deps

import (
	"cmp"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// maxFuncLines is the longest a function of a product package may be, from its func line to its
// closing brace: a function should fit on a screen.
const maxFuncLines = 80

// funcLenExempt are the folders whose functions are not counted: test helpers and generators of
// test data, not product code (their tests' own files are never counted anywhere).
var funcLenExempt = []string{"internal/testenv", "internal/genlog", "internal/deps"}

// stillLong lists functions allowed over maxFuncLines, with their length: none now (runner's
// and analysis's were split when the studies left them). An entry fails the test when its
// function grows, falls to maxFuncLines or below (delete the entry) or is gone.
var stillLong = map[string]int{}

// funcLen is one function's length, named package/file.go:Func or package/file.go:Type.Method.
type funcLen struct {
	name  string
	lines int
}

// TestFunctionLength fails on any function of a product package longer than maxFuncLines
// (besides stillLong's, which may only shrink) and prints the longest ones.
func TestFunctionLength(t *testing.T) {
	lens := moduleFuncLens(t, repoRoot())
	slices.SortFunc(lens, func(a, b funcLen) int { return cmp.Or(b.lines-a.lines, strings.Compare(a.name, b.name)) })
	for i, f := range lens[:min(15, len(lens))] {
		t.Logf("%2d. %4d lines  %s", i+1, f.lines, f.name)
	}
	seen := map[string]bool{}
	for _, f := range lens {
		was, listed := stillLong[f.name]
		seen[f.name] = listed
		switch {
		case listed && f.lines <= maxFuncLines:
			t.Errorf("%s is %d lines now, within %d: delete its stillLong entry", f.name, f.lines, maxFuncLines)
		case listed && f.lines > was:
			t.Errorf("%s grew from %d to %d lines: split it, don't grow it", f.name, was, f.lines)
		case !listed && f.lines > maxFuncLines:
			t.Errorf("%s is %d lines, over %d: split it along a real seam", f.name, f.lines, maxFuncLines)
		}
	}
	for name := range stillLong {
		if !seen[name] {
			t.Errorf("stillLong lists %s, which is no longer a function: delete its entry", name)
		}
	}
}

// moduleFuncLens is the length of every function and method in the non-test Go files of the
// module's product packages (every package but funcLenExempt's, another module's or testdata).
func moduleFuncLens(t *testing.T, root string) []funcLen {
	t.Helper()
	var lens []funcLen
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			name := d.Name()
			if path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules" ||
				slices.Contains(funcLenExempt, rel) || fileExists(filepath.Join(path, "go.mod"))) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			if fn, ok := decl.(*ast.FuncDecl); ok && fn.Body != nil {
				lines := fset.Position(fn.End()).Line - fset.Position(fn.Pos()).Line + 1
				lens = append(lens, funcLen{name: rel + ":" + funcName(fn), lines: lines})
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return lens
}

// funcName is Func, or Type.Method for a method (pointer or not).
func funcName(fn *ast.FuncDecl) string {
	if fn.Recv == nil || len(fn.Recv.List) == 0 {
		return fn.Name.Name
	}
	typ := fn.Recv.List[0].Type
	if star, ok := typ.(*ast.StarExpr); ok {
		typ = star.X
	}
	if idx, ok := typ.(*ast.IndexExpr); ok { // a generic type's method
		typ = idx.X
	}
	if idx, ok := typ.(*ast.IndexListExpr); ok {
		typ = idx.X
	}
	if id, ok := typ.(*ast.Ident); ok {
		return id.Name + "." + fn.Name.Name
	}
	return fmt.Sprintf("%T.%s", typ, fn.Name.Name)
}
