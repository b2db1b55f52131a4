package gonbext_test

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/quce-go/quce/pipeline/pipelinetest"
)

// notebook is a saved notebook's cells: each cell's source and its outputs' text.
type notebook struct {
	Cells []struct {
		Type    string          `json:"cell_type"`
		Source  json.RawMessage `json:"source"`
		Outputs []struct {
			Data map[string]json.RawMessage `json:"data"`
			Text json.RawMessage            `json:"text"` // a stream's
		} `json:"outputs"`
	} `json:"cells"`
}

// readNotebook reads notebooks/name as saved.
func readNotebook(t *testing.T, name string) notebook {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(pipelinetest.Root(), "notebooks", name))
	if err != nil {
		t.Fatal(err)
	}
	var nb notebook
	if err := json.Unmarshal(b, &nb); err != nil {
		t.Fatal(err)
	}
	return nb
}

// text is a notebook string field (a string, or a list of lines).
func text(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var lines []string
	json.Unmarshal(raw, &lines)
	return strings.Join(lines, "")
}

// find is the index of the cell of type kind whose source holds s.
func (nb *notebook) find(t *testing.T, kind, s string) int {
	t.Helper()
	for i, c := range nb.Cells {
		if c.Type == kind && strings.Contains(text(c.Source), s) {
			return i
		}
	}
	t.Fatalf("no %s cell holds %q", kind, s)
	return -1
}

// output is the HTML of cell i's outputs.
func (nb *notebook) output(i int) string {
	var b strings.Builder
	for _, o := range nb.Cells[i].Outputs {
		b.WriteString(text(o.Data["text/html"]))
	}
	return b.String()
}

// rows are the cells of the HTML table rows in html, keyed by their first cell.
func rows(html string) map[string][]string {
	out := map[string][]string{}
	for _, tr := range regexp.MustCompile(`<tr>(<td>.*?)</tr>`).FindAllStringSubmatch(html, -1) {
		var cells []string
		for _, td := range regexp.MustCompile(`<td>(.*?)</td>`).FindAllStringSubmatch(tr[1], -1) {
			cells = append(cells, td[1])
		}
		out[cells[0]] = cells[1:]
	}
	return out
}

func number(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil {
		t.Fatalf("not a number: %q", s)
	}
	return v
}

// prose writes numbers as the notebooks' text does: a minus sign for a negative number, not a
// hyphen (an exponent keeps its hyphen: −8.8e-06).
func prose(format string, v ...any) string {
	return regexp.MustCompile(`(^|[^e])-`).ReplaceAllString(fmt.Sprintf(format, v...), "${1}−")
}

// Notebook 1's text quotes the numbers of its saved outputs, not those of an older run: each
// claim below is built from the outputs and must appear in the text that reads them.
func TestQuickstartProseQuotesItsOutputs(t *testing.T) {
	nb := readNotebook(t, "01_quickstart.ipynb")
	claims := map[int][]string{} // markdown cell → what it must say
	says := func(cell int, s string) { claims[cell] = append(claims[cell], s) }

	// The table of eight patients, and the text under it.
	table := nb.find(t, "code", "gonbext.ShowTable(s, ex)")
	var before, after, gap, cfUnc, pathUnc []float64
	for name, r := range rows(nb.output(table)) {
		if !strings.HasPrefix(name, "line ") {
			continue
		}
		before, after = append(before, number(t, r[2])), append(after, number(t, r[3]))
		gap, cfUnc, pathUnc = append(gap, math.Abs(number(t, r[6]))), append(cfUnc, number(t, r[7])), append(pathUnc, number(t, r[8]))
	}
	if len(after) != 8 {
		t.Fatalf("%d patients in the table, want 8", len(after))
	}
	lo, hi := func(v []float64) float64 { return slices.Min(v) }, func(v []float64) float64 { return slices.Max(v) }
	says(table+1, fmt.Sprintf("at most %.4f", hi(before)))
	says(table+1, fmt.Sprintf("`F(target)` %.3f–%.3f after", lo(after), hi(after)))
	says(table+1, fmt.Sprintf("(at most %.1e in size)", hi(gap)))
	says(table+1, fmt.Sprintf("counterfactual (%.1f–%.1f)", lo(cfUnc), hi(cfUnc)))
	says(table+1, fmt.Sprintf("along the path (%.1f–%.1f)", lo(pathUnc), hi(pathUnc)))

	// Figure 1 and the path of the patient on line 3: the changes table and its summary.
	one := nb.find(t, "code", "gonbext.ShowExplanation(s, ex[0])")
	out := nb.output(one)
	ch := rows(out)
	v := func(feature string, k int) float64 { return number(t, ch[feature][k]) } // 0 x, 1 x_c, 2 Φ, 3 Φ−, 4 Φ+
	gapOne := number(t, regexp.MustCompile(`completeness gap ([-+.e0-9]+)`).FindStringSubmatch(out)[1])
	cfOne := number(t, regexp.MustCompile(`counterfactual uncertainty ([.0-9]+)`).FindStringSubmatch(out)[1])
	says(one-1, fmt.Sprintf("at most %.1e in size for the eight patients above, %s for this one", hi(gap), prose("%.1e", gapOne)))
	says(one+1, prose("completeness gap %.1e.", gapOne))
	says(one+1, prose("worst_area 1956 → %.0f (Φ = %+.2f)", v("worst_area", 1), v("worst_area", 2)))
	says(one+1, prose("worst_perimeter 158.8 → %.1f (%+.2f)", v("worst_perimeter", 1), v("worst_perimeter", 2)))
	says(one+1, prose("area_error 74.1 → %.1f (%+.2f)", v("area_error", 1), v("area_error", 2)))
	says(one+1, prose("worst_radius 24.99 → %.2f (%+.2f)", v("worst_radius", 1), v("worst_radius", 2)))
	says(one+1, prose("(20.57 → %.2f) but has Φ = %+.2f", v("mean_radius", 1), v("mean_radius", 2)))
	says(one+1, prose("(worst_perimeter %.3f, worst_area %.3f)", v("worst_perimeter", 4), v("worst_area", 4)))
	says(one+1, prose("`L_ε` = %.2f at `x_c`", cfOne))
	says(nb.find(t, "code", "gonbext.ShowMap(s, ex[0])")+1, fmt.Sprintf("(the `L_ε` of %.2f above)", cfOne))

	// exQUCE: the note under the figure gives the mean F at the counterfactuals.
	paths := nb.find(t, "code", "gonbext.ShowPaths(s, ex[0])")
	meanEnd := regexp.MustCompile(`→ ([.0-9]+) at the counterfactuals \(mean\)`).FindStringSubmatch(nb.output(paths))
	if meanEnd == nil {
		t.Fatal("the exQUCE figure's note gives no mean F at the counterfactuals")
	}
	says(paths+1, "mean `F(benign | x_c)` = "+meanEnd[1]+")")
	says(paths+1, fmt.Sprintf("rather than %.2f.", cfOne))

	// The two VAEs.
	vaes := nb.find(t, "code", "small.Latent = 4")
	cmp := rows(nb.output(vaes))
	d, s4 := cmp["latent 15 (default)"], cmp["latent 4"] // MSE, F, L1, mean ε, ΣΦ+, ΣΦ−, L_ε(x_c), path L_ε, top
	if d == nil || s4 == nil {
		t.Fatal("the comparison of the two VAEs is not in the outputs")
	}
	end := func(r []string) string { return strings.TrimSpace(strings.Split(r[1], "→")[1]) }
	top := func(r []string) string { return regexp.MustCompile(`\(([-+.0-9]+)\)`).FindStringSubmatch(r[8])[1] }
	says(vaes+1, fmt.Sprintf("(MSE %s against %s)", s4[0], d[0]))
	says(vaes+1, fmt.Sprintf("(worst_area %s against %s,", top(s4), top(d)))
	says(vaes+1, fmt.Sprintf("(L1 %s against %s)", s4[2], d[2]))
	says(vaes+1, fmt.Sprintf("less confident (%s against %s)", end(s4), end(d)))
	says(vaes+1, fmt.Sprintf("(mean ε %s against %s)", s4[3], d[3]))
	says(vaes+1, prose("Σ Φ+ is %s against %s,", s4[4], d[4]))
	says(vaes+1, fmt.Sprintf("the counterfactual %.2f (the default %.2f)", number(t, s4[6]), number(t, d[6])))
	says(one+1, fmt.Sprintf("would lower `F(benign)` by %.2f", -number(t, d[4])))
	says(one+1, fmt.Sprintf("raise it by %.3f", number(t, d[5])))

	checkClaims(t, nb, claims)
}

// checkClaims checks that each markdown cell of nb says what claims holds for it.
func checkClaims(t *testing.T, nb notebook, claims map[int][]string) {
	t.Helper()
	for cell, want := range claims {
		if nb.Cells[cell].Type != "markdown" {
			t.Fatalf("cell %d, where the text on an output should be, is %s", cell, nb.Cells[cell].Type)
		}
		md := text(nb.Cells[cell].Source)
		for _, w := range want {
			if !strings.Contains(md, w) {
				t.Errorf("cell %d does not say %q, which its outputs show", cell, w)
			}
		}
	}
}
