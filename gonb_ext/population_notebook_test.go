package gonbext_test

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// tables are the rows of the HTML tables in html, each a list of its cells' text.
func tables(html string) [][]string {
	var out [][]string
	for _, tr := range regexp.MustCompile(`<tr>(<td>.*?)</tr>`).FindAllStringSubmatch(html, -1) {
		var cells []string
		for _, td := range regexp.MustCompile(`<td>(.*?)</td>`).FindAllStringSubmatch(tr[1], -1) {
			cells = append(cells, td[1])
		}
		out = append(out, cells)
	}
	return out
}

// row is the first row of rows that starts with the cells first.
func row(t *testing.T, rows [][]string, first ...string) []string {
	t.Helper()
	for _, r := range rows {
		if len(r) >= len(first) && slices.Equal(r[:len(first)], first) {
			return r
		}
	}
	t.Fatalf("no table row starts with %q", first)
	return nil
}

// Notebook 7's text quotes the numbers of its saved outputs: each claim below is built from
// the outputs and must appear in the text that reads them.
func TestPopulationProseQuotesItsOutputs(t *testing.T) {
	nb := readNotebook(t, "07_population.ipynb")
	claims := map[int][]string{}
	says := func(cell int, s string) { claims[cell] = append(claims[cell], s) }
	printed := func(cell int) string {
		var s strings.Builder
		for _, o := range nb.Cells[cell].Outputs {
			s.WriteString(text(o.Text))
		}
		return s.String()
	}
	// needs prints "NAME  N applicants, K rated bad (P%), V of them ...".
	need := func(cell int, group string) []string {
		m := regexp.MustCompile(regexp.QuoteMeta(group) + `\s+(\d+) applicants,\s+(\d+) rated bad \(\s*([.0-9]+)%\)`).FindStringSubmatch(printed(cell))
		if m == nil {
			t.Fatalf("cell %d prints nothing for %s", cell, group)
		}
		return m[1:]
	}

	counts := nb.find(t, "code", "ds := data.GermanCredit()")
	m := regexp.MustCompile(`foreign_worker \(binary\): no (\d+), yes (\d+)`).FindStringSubmatch(printed(counts))
	if m == nil {
		t.Fatalf("the counts of foreign_worker are not printed: %q", printed(counts))
	}
	says(counts+1, fmt.Sprintf("holds %s applicants who are not foreign workers and %s who are", m[1], m[2]))

	fw := nb.find(t, "code", `summarise("foreign_worker")`)
	out := nb.output(fw)
	rows := tables(out)
	head := regexp.MustCompile(`Recourse over (\d+) rows.*? (\d+) already have the target class.*? (\d+) searched, (\d+) valid`).FindStringSubmatch(out)
	if head == nil {
		t.Fatal("the summary's counts are not in the output")
	}
	says(fw+1, fmt.Sprintf("already rates %s of the %s applicants good; the other %s are searched", head[2], head[1], head[3]))
	changed := func(column string) (string, string) {
		r := row(t, rows, column)
		return regexp.MustCompile(`\((.*)\)`).FindStringSubmatch(r[0+1])[1], r[2]
	}
	share, change := changed("credit_amount")
	says(fw+1, prose("`credit_amount` changes in all %s counterfactuals (by %s on average", head[4], change))
	if share != "100%" {
		t.Errorf("credit_amount changes in %s of the counterfactuals, not all", share)
	}
	share, change = changed("duration")
	says(fw+1, prose("`duration` in %s (by %s months)", share, change))
	share, _ = changed("purpose")
	says(fw+1, fmt.Sprintf("`purpose` changes in %s", share))
	share, _ = changed("checking_status")
	says(fw+1, fmt.Sprintf("`checking_status` in %s", share))
	share, change = changed("age")
	says(fw+1, fmt.Sprintf("`age` changes in %s of the counterfactuals yet by only %s on average", share, change))
	l0 := row(t, rows, "cost L0 (columns changed)")
	says(fw+1, fmt.Sprintf("changes %s columns (the median; mean %s)", strings.Fields(l0[3])[0], l0[2]))
	no, yes := need(fw, "no"), need(fw, "yes")
	says(fw+1, fmt.Sprintf("rates %s of the %s non-foreign workers bad (%s%%) against %s of the %s foreign workers (%s%%)", no[1], no[0], no[2], yes[1], yes[0], yes[2]))
	gNo, gYes := row(t, rows, "no"), row(t, rows, "yes") // group, rows, already, searched, valid, failed, validity, L1, L0, uncertainty
	says(fw+1, fmt.Sprintf("L1 %s against %s", gNo[7], gYes[7]))
	says(fw+1, fmt.Sprintf("L0 %s against %s", strings.Fields(gNo[8])[0], strings.Fields(gYes[8])[0]))
	says(fw+1, fmt.Sprintf("L_ε %s against %s", gNo[9], gYes[9]))
	diff := func(measure, group string) []string { return row(t, rows, measure, group) } // measure, groups, n, difference, p
	c := diff("cost L1 (standardised inputs)", "no − yes")
	says(fw+1, prose("a difference of %s with p = %s", c[3], c[4]))
	says(fw+1, fmt.Sprintf("(p = %s)", diff("counterfactual uncertainty L_ε", "no − yes")[4]))
	c = diff("cost L1 (data units, numeric columns)", "no − yes")
	says(fw+1, prose("(%s, p = %s)", c[3], c[4]))

	ps := nb.find(t, "code", `summarise("personal_status")`)
	rows = tables(nb.output(ps))
	var shares []string
	for _, g := range []string{"female div/dep/mar", "male div/sep", "male mar/wid", "male single"} {
		shares = append(shares, need(ps, g)[2]+"%")
	}
	says(ps+1, fmt.Sprintf("%s of *female div/dep/mar* and %s of *male div/sep* against %s of *male mar/wid* and %s of *male single*", shares[0], shares[1], shares[2], shares[3]))
	var ps1 []string
	for _, g := range []string{"female div/dep/mar", "male div/sep", "male mar/wid", "male single"} {
		ps1 = append(ps1, diff("cost L1 (standardised inputs)", g+" − rest")[4])
	}
	slices.Sort(ps1)
	says(ps+1, fmt.Sprintf("p from %s to %s", ps1[0], ps1[len(ps1)-1]))
	says(ps+1, prose("*female div/dep/mar* %s", diff("cost L1 (standardised inputs)", "female div/dep/mar − rest")[3]))
	l0c := diff("cost L0 (columns changed)", "male div/sep − rest")
	uc := diff("counterfactual uncertainty L_ε", "male div/sep − rest")
	says(ps+1, prose("L0 +%s (p = %s) and uncertainty +%s (p = %s)", l0c[3], l0c[4], uc[3], uc[4]))
	says(ps+1, fmt.Sprintf("*male div/sep*, %s applicants rated bad", need(ps, "male div/sep")[1]))
	below := 0
	for _, r := range rows {
		if len(r) == 5 && strings.HasSuffix(r[1], " − rest") && number(t, r[4]) < 0.05 {
			below++
		}
	}
	if below != 2 {
		t.Errorf("%d tests below 0.05; the text says two", below)
	}

	checkClaims(t, nb, claims)
}
