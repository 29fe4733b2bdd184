package checkresult

import "fmt"

// Endpoint is one endpoint's Results under its label, for the side-by-side views.
type Endpoint struct {
	Label   string
	Results []Result
}

// row is one check across the endpoints; a cell is nil where an endpoint has no such Result.
type row struct {
	Name  string
	Cells []*Result
}

// grid lays the endpoints' Results out by check, in the order checks first appear.
func grid(eps []Endpoint) []row {
	var rows []row
	at := map[string]int{}
	for e, ep := range eps {
		for i := range ep.Results {
			r := &ep.Results[i]
			k, ok := at[r.Name]
			if !ok {
				k = len(rows)
				at[r.Name] = k
				rows = append(rows, row{Name: r.Name, Cells: make([]*Result, len(eps))})
			}
			rows[k].Cells[e] = r
		}
	}
	return rows
}

// short is a cell's text: "pass 2/2", "FAIL 1/2", "skipped", "-" for no Result.
func short(r *Result) string {
	if r == nil {
		return "-"
	}
	switch r.Verdict() {
	case VerdictSkipped:
		return "skipped"
	case VerdictPass:
		return fmt.Sprintf("pass %d/%d", r.Pass, r.Pass+r.Fail)
	}
	return fmt.Sprintf("FAIL %d/%d", r.Pass, r.Pass+r.Fail)
}
