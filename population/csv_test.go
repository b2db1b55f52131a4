package population

import (
	"bytes"
	"encoding/csv"
	"slices"
	"testing"
)

// TestCSV: the table has one row per column and scope, all the rows first, with the scope's
// own figures on each, numbers in full precision and NA where one is not defined.
func TestCSV(t *testing.T) {
	s, err := Summarise(handInput(), Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.CSV("grp")
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(recs[0], CSVColumns) || len(recs) != 1+3*len(table) {
		t.Fatalf("header %v and %d rows; want %v and %d (%d columns × all, A, B)", recs[0], len(recs)-1, CSVColumns, 3*len(table), len(table))
	}
	field := func(rec []string, name string) string { return rec[slices.Index(CSVColumns, name)] }
	for _, w := range []struct {
		row                                                    int
		group, column, changed, meanChange, transitions, valid string
	}{
		{1, "all", "duration", "3", "-9", "", "4"},
		{2, "all", "housing", "3", "NA", "rent → own (2), for free → rent (1)", "4"},
		{1 + len(table), "A", "duration", "1", "-6", "", "2"},                                         // rows 1 and 2 valid; row 1 changes it
		{1 + 2*len(table) + 1, "B", "housing", "2", "NA", "for free → rent (1), rent → own (1)", "2"}, // a tie: by the level changed from
	} {
		rec := recs[w.row]
		got := []string{field(rec, "group_by"), field(rec, "group"), field(rec, "column"), field(rec, "changed"), field(rec, "mean_change"), field(rec, "transitions"), field(rec, "valid")}
		if want := []string{"grp", w.group, w.column, w.changed, w.meanChange, w.transitions, w.valid}; !slices.Equal(got, want) {
			t.Errorf("row %d: %q; want %q", w.row, got, want)
		}
	}
	if got, want := field(recs[1], "cost_l1"), "10.875"; got != want { // (9 + 1.5 + 28 + 5) / 4 in full
		t.Errorf("cost_l1 of all %s; want %s", got, want)
	}
}
