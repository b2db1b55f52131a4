package data

import (
	"bytes"
	"encoding/csv"
	"reflect"
	"slices"
	"testing"
)

// germanRecords returns the embedded German credit file's header and
// data rows as text.
func germanRecords(t *testing.T) (header []string, rows [][]string) {
	t.Helper()
	recs, err := csv.NewReader(bytes.NewReader(germanCSV)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return recs[0], recs[1:]
}

func TestGermanCredit(t *testing.T) {
	d := GermanCredit()
	want := []string{
		"checking_status: categorical, 4 categories (0<=X<200, <0, >=200, no checking)",
		"duration: integer, 4 … 72",
		"credit_history: categorical, 5 categories (all paid, critical/other existing credit, delayed previously, existing paid, no credits/all paid)",
		"purpose: categorical, 10 categories (business, domestic appliance, education, furniture/equipment, new car, other, radio/tv, repairs, retraining, used car)",
		"credit_amount: integer, 250 … 18424",
		"savings_status: categorical, 5 categories (100<=X<500, 500<=X<1000, <100, >=1000, no known savings)",
		"employment: categorical, 5 categories (1<=X<4, 4<=X<7, <1, >=7, unemployed)",
		"installment_commitment: integer, 1 … 4",
		"personal_status: categorical, 4 categories (female div/dep/mar, male div/sep, male mar/wid, male single)",
		"other_parties: categorical, 3 categories (co applicant, guarantor, none)",
		"residence_since: integer, 1 … 4",
		"property_magnitude: categorical, 4 categories (car, life insurance, no known property, real estate)",
		"age: integer, 19 … 75",
		"other_payment_plans: categorical, 3 categories (bank, none, stores)",
		"housing: categorical, 3 categories (for free, own, rent)",
		"existing_credits: integer, 1 … 4",
		"job: categorical, 4 categories (high qualif/self emp/mgmt, skilled, unemp/unskilled non res, unskilled resident)",
		"num_dependents: binary, 1 or 2",
		"own_telephone: binary, none (0) or yes (1)",
		"foreign_worker: binary, no (0) or yes (1)",
	}
	if got := d.Summary(); !slices.Equal(got, want) {
		t.Errorf("Summary:\n%q\nwant\n%q", got, want)
	}
	var text, numeric []string
	for _, c := range d.Columns {
		if c.IsNumeric() {
			numeric = append(numeric, c.Name)
		} else {
			text = append(text, c.Name)
		}
	}
	if len(text) != 13 || len(numeric) != 7 || d.NumFeatures() != 59 {
		t.Errorf("%d text columns %q, %d numeric %q, %d inputs; want 13, 7, 59", len(text), text, len(numeric), numeric, d.NumFeatures())
	}
	ones := 0
	for _, y := range d.Y {
		ones += y
	}
	if d.Name != "german_credit (embedded)" || d.Rows() != 1000 || ones != 300 || d.Target != "target" ||
		!slices.Equal(d.Labels, []string{"good", "bad"}) || d.Dropped != 0 || len(d.Ignored) != 0 ||
		d.Lines[0] != 2 || d.Lines[999] != 1001 || d.Checksum != "a59148b48935ec5917f6993c5d9620ae5ec2bee25e8d0fd89f396cd25c8907c7" {
		t.Errorf("%s: %d rows, %d bad, target %q, labels %q, dropped %d, ignored %q, lines %d…%d",
			d.Name, d.Rows(), ones, d.Target, d.Labels, d.Dropped, d.Ignored, d.Lines[0], d.Lines[999])
	}
	if c, ok := d.Column("housing"); !ok || c.Start != 48 || c.Width != 3 || d.Features[49] != "housing=own" {
		t.Errorf("housing: %+v, %v; inputs %q", c, ok, d.Features[48:51])
	}

	// Every call is an independent copy.
	d.Columns[0].Levels[0] = "changed"
	d.Lines[0] = -1
	if e := GermanCredit(); e.Columns[0].Levels[0] != "0<=X<200" || e.Lines[0] != 2 {
		t.Errorf("modifying one GermanCredit() result changed another")
	}
}

// Decoding the encoded rows gives back the cells of the file, and
// encoding the cells gives the rows.
func TestGermanCreditRoundTrip(t *testing.T) {
	d := GermanCredit()
	header, rows := germanRecords(t)
	for i, rec := range rows {
		values := make(map[string]string, len(rec))
		for j, cell := range rec {
			values[header[j]] = cell
		}
		for _, c := range d.Columns {
			if got := c.Format(d.X[i]); got != values[c.Name] {
				t.Fatalf("line %d: %s.Format = %q, want %q", d.Lines[i], c.Name, got, values[c.Name])
			}
		}
		x, err := d.EncodeRecord(values)
		if err != nil || !slices.Equal(x, d.X[i]) {
			t.Fatalf("line %d: EncodeRecord = %v, %v; want %v", d.Lines[i], x, err, d.X[i])
		}
	}
	// The first row as JSON values: text as text, numbers as numbers.
	want := []any{"<0", 6.0, "critical/other existing credit", "radio/tv", 1169.0, "no known savings", ">=7", 4.0,
		"male single", "none", 4.0, "real estate", 67.0, "none", "own", 2.0, "skilled", 1.0, "yes", "yes"}
	got := make([]any, len(d.Columns))
	for k, c := range d.Columns {
		got[k] = c.Value(d.X[0])
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Value of row 1 = %v\nwant %v", got, want)
	}
}

// Declared types on German credit: employment in its order, written as
// Summary writes it; ignored columns (listed in file order); a subset
// keeps the columns.
func TestGermanCreditDeclared(t *testing.T) {
	types, err := ParseTypes("employment=ordinal:unemployed < <1 < 1<=X<4 < 4<=X<7 < >=7,foreign_worker=ignore")
	if err != nil {
		t.Fatal(err)
	}
	d, err := Parse(bytes.NewReader(germanCSV), "german_credit.csv", LoadOptions{Types: types, Ignore: []string{"own_telephone"}})
	if err != nil {
		t.Fatal(err)
	}
	sum := d.Summary()
	if sum[6] != "employment: ordinal, unemployed < <1 < 1<=X<4 < 4<=X<7 < >=7" ||
		!slices.Equal(sum[len(sum)-2:], []string{"own_telephone: ignored", "foreign_worker: ignored"}) || len(sum) != 20 {
		t.Errorf("Summary: %q", sum)
	}
	emp, _ := d.Column("employment")
	if !emp.Declared || emp.Width != 1 || emp.Min != 0 || emp.Max != 4 || d.X[0][emp.Start] != 4 || d.X[1][emp.Start] != 2 {
		t.Errorf("employment: %+v, rows 1 and 2: %v, %v", emp, d.X[0][emp.Start], d.X[1][emp.Start])
	}
	if d.NumFeatures() != 59-5+1-2 || !slices.Equal(d.Ignored, []string{"own_telephone", "foreign_worker"}) {
		t.Errorf("%d inputs, ignored %q", d.NumFeatures(), d.Ignored)
	}
	s := d.Subset([]int{1, 0})
	if !slices.Equal(s.Lines, []int{3, 2}) || !reflect.DeepEqual(s.Columns, d.Columns) || !slices.Equal(s.Ignored, d.Ignored) ||
		&s.Columns[6].Levels[0] == &d.Columns[6].Levels[0] {
		t.Errorf("Subset: lines %v, columns equal %v, ignored %q", s.Lines, reflect.DeepEqual(s.Columns, d.Columns), s.Ignored)
	}
}
