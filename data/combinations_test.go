package data

import (
	"slices"
	"strings"
	"testing"
)

// The pairs of category values a set of rows holds, and the values of a changed row that
// pair as no row does: categorical, text binary and ordinal columns are paired, numeric ones
// ignored, and a pair of two values both unchanged from the base row never counts.
func TestCombinationsUnseen(t *testing.T) {
	csv := "age,relationship,sex,marital,size,y\n" +
		"40,Husband,Male,Married,small,1\n" +
		"38,Wife,Female,Married,large,1\n" +
		"22,Own-child,Female,Never,small,0\n" +
		"25,Own-child,Male,Never,large,0\n" +
		"50,Unmarried,Female,Divorced,small,0\n" +
		"30,Unmarried,Male,Never,small,0\n"
	ds, err := Parse(strings.NewReader(csv), "household", types("size", []string{"small", "large"}))
	if err != nil {
		t.Fatal(err)
	}
	seen := SeenCombinations(ds.Columns, ds.X)
	row := func(vals map[string]string) []float64 {
		t.Helper()
		r, err := ds.EncodeRecord(vals)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	base := map[string]string{"age": "50", "relationship": "Unmarried", "sex": "Female", "marital": "Divorced", "size": "small"}
	with := func(kv ...string) map[string]string {
		m := map[string]string{}
		for k, v := range base {
			m[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	for _, tc := range []struct {
		name  string
		row   map[string]string
		want  []string
		pairs int
	}{
		{"the base row itself", with(), nil, 0},
		{"a numeric change", with("age", "30"), nil, 0},
		{"a seen change", with("marital", "Never"), nil, 0},
		{"married but unmarried", with("marital", "Married"), []string{"relationship=Unmarried", "marital=Married"}, 1},
		{"a female husband", with("relationship", "Husband", "marital", "Married"), []string{"relationship=Husband", "sex=Female"}, 1},
		{"a seen couple", with("relationship", "Wife", "marital", "Married", "size", "large"), nil, 0},
		{"an ordinal pairs too", with("size", "large"), []string{"relationship=Unmarried", "marital=Divorced", "size=large"}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := row(tc.row)
			if got := seen.Unseen(r, row(base)); !slices.Equal(got, tc.want) {
				t.Errorf("Unseen = %q, want %q", got, tc.want)
			}
			if got := seen.UnseenPairs(r, row(base)); got != tc.pairs {
				t.Errorf("UnseenPairs = %d, want %d", got, tc.pairs)
			}
		})
	}
	// A base row with a pair no row holds: that pair, unchanged, is not the change's doing.
	odd := row(with("relationship", "Husband"))
	if got := seen.Unseen(odd, odd); got != nil {
		t.Errorf("the unchanged odd row: Unseen = %q, want nil", got)
	}
	var none *Combinations
	if got := none.Unseen(odd, row(base)); got != nil {
		t.Errorf("nil Combinations: Unseen = %q, want nil", got)
	}
}
