package report

import (
	"bytes"
	"encoding/csv"
	"math"
	"strconv"
	"testing"
)

// csvLine writes what encoding/csv's Writer writes for the same fields: texts that need
// quotes (commas, quotes, line breaks, a leading space, `\.`) and that do not, numbers
// (with NA where not finite), integers, booleans, a repeated text (kept encoded) and a
// group of fields encoded once and repeated on several lines.
func TestCSVLineAsEncodingCSV(t *testing.T) {
	texts := []string{"", "plain", "a,b", `say "hi"`, "two\nlines", "cr\rhere", " leading", "\tTab", `\.`, "\u00a0nbsp", "ünïcode", "plain"}
	nums := []float64{0, math.Copysign(0, -1), 1.5, -2.25e-7, 1e21, 123456789.123, math.NaN(), math.Inf(1), math.Inf(-1), float64(float32(0.1))}
	num := func(v float64) string {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return "NA"
		}
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	var want bytes.Buffer
	ref := csv.NewWriter(&want)
	l := newCSVLine()
	var groupRec []string
	group := l.fields(func() {
		for _, s := range texts[:5] {
			l.text(s)
			groupRec = append(groupRec, s)
		}
		l.num(nums[6])
		l.int(-42)
		groupRec = append(groupRec, "NA", "-42")
	})
	for line := range 3 {
		var rec []string
		for i, s := range texts {
			l.text(s)
			l.num(nums[(i+line)%len(nums)])
			l.bool(i%2 == 0)
			l.int(i * line)
			rec = append(rec, s, num(nums[(i+line)%len(nums)]), strconv.FormatBool(i%2 == 0), strconv.Itoa(i*line))
		}
		l.raw(group)
		l.end()
		if err := ref.Write(append(rec, groupRec...)); err != nil {
			t.Fatal(err)
		}
	}
	ref.Flush()
	if !bytes.Equal(l.buf, want.Bytes()) {
		t.Errorf("got\n%q\nwant\n%q", l.buf, want.Bytes())
	}
}
