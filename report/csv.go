package report

import (
	"bytes"
	"encoding/csv"
	"io"
	"math"
	"strings"

	"github.com/quce-go/quce/data"
)

// csvCell is a column of the CSV table: its name and how it writes its field of the line of
// column ci of the instance in.
type csvCell struct {
	name  string
	write func(l *csvLine, in *Instance, ci int)
}

// failed reports whether in is a failed row: it has no counterfactual, so no attribution to
// rank by and no change to report, and its table says NA for them.
func (in *Instance) failed() bool { return in.Failure != "" }

// orNA writes NA on a failed row's line, write otherwise.
func orNA(write func(l *csvLine, in *Instance, ci int)) func(l *csvLine, in *Instance, ci int) {
	return func(l *csvLine, in *Instance, ci int) {
		if in.failed() {
			l.text("NA")
			return
		}
		write(l, in, ci)
	}
}

// value writes column ci of the row x (the data's units): a continuous value in full
// precision, any other in the data's own terms.
func value(l *csvLine, c data.Column, x []float64) {
	if c.Type == data.Continuous {
		l.num(x[c.Start])
		return
	}
	l.text(c.Format(x))
}

// at is v[ci], or NaN (NA) where v is nil (a failed row's).
func at(v Vector, ci int) float64 {
	if v == nil {
		return math.NaN()
	}
	return v[ci]
}

// lineCells are the table's columns whose values differ from one column of the instance to
// the next; instanceCells, after them, are the instance's own figures, repeated on each of
// its lines (and encoded once).
var (
	lineCells = []csvCell{
		{"file", func(l *csvLine, in *Instance, _ int) { l.text(in.File) }},
		{"line", func(l *csvLine, in *Instance, _ int) { l.int(in.Line) }},
		{"split", func(l *csvLine, in *Instance, _ int) { l.text(in.Split) }},
		{"column", func(l *csvLine, in *Instance, ci int) { l.text(in.Columns[ci].Name) }},
		{"rank", orNA(func(l *csvLine, in *Instance, ci int) { l.int(in.Rank[ci]) })},
		{"original", func(l *csvLine, in *Instance, ci int) { value(l, in.Columns[ci], in.Inputs.XOriginal) }},
		{"counterfactual", orNA(func(l *csvLine, in *Instance, ci int) {
			value(l, in.Columns[ci], in.Inputs.CounterfactualOriginal)
		})},
		{"attribution", func(l *csvLine, in *Instance, ci int) { l.num(at(in.Attribution, ci)) }},
		{"attribution_std", func(l *csvLine, in *Instance, ci int) { l.num(at(in.AttributionStd, ci)) }},
		{"attribution_plus", func(l *csvLine, in *Instance, ci int) { l.num(at(in.AttributionPlus, ci)) }},
		{"attribution_minus", func(l *csvLine, in *Instance, ci int) { l.num(at(in.AttributionMinus, ci)) }},
		{"epsilon", func(l *csvLine, in *Instance, ci int) { l.num(at(in.Epsilon, ci)) }},
		{"changed", orNA(func(l *csvLine, in *Instance, ci int) { l.bool(in.Changed[ci]) })},
		{"detour", orNA(func(l *csvLine, in *Instance, ci int) { l.bool(in.Detour[ci]) })},
	}
	instanceCells = []csvCell{
		{"predicted_class", func(l *csvLine, in *Instance, _ int) { l.text(in.PredictedClassName) }},
		{"target_class", func(l *csvLine, in *Instance, _ int) { l.text(in.TargetClassName) }},
		{"prob_target_start", func(l *csvLine, in *Instance, _ int) { l.num(float64(in.ProbTargetStart)) }},
		{"prob_target_end", func(l *csvLine, in *Instance, _ int) { l.num(float64(in.ProbTargetEnd)) }},
		{"margin", func(l *csvLine, in *Instance, _ int) { l.num(float64(in.Margin)) }},
		{"valid", func(l *csvLine, in *Instance, _ int) { l.bool(in.Valid) }},
		{"unseen_combination", func(l *csvLine, in *Instance, _ int) { l.text(strings.Join(in.UnseenCombination, ";")) }},
		{"already_target", func(l *csvLine, in *Instance, _ int) { l.bool(in.AlreadyTarget) }},
		{"completeness_gap", func(l *csvLine, in *Instance, _ int) { l.num(float64(in.CompletenessGap)) }},
		{"cf_uncertainty", func(l *csvLine, in *Instance, _ int) { l.num(float64(in.CFUncertainty)) }},
		{"cf_uncertainty_paper", func(l *csvLine, in *Instance, _ int) { l.num(float64(in.CFUncertaintyPaper)) }},
		{"path_uncertainty", func(l *csvLine, in *Instance, _ int) { l.num(float64(in.PathUncertainty)) }},
		{"path_uncertainty_paper", func(l *csvLine, in *Instance, _ int) { l.num(float64(in.PathUncertaintyPaper)) }},
		{"path_steps", func(l *csvLine, in *Instance, _ int) { l.int(in.PathSteps) }},
		{"paths", func(l *csvLine, in *Instance, _ int) { l.int(in.Paths) }},
		{"valid_paths_count", func(l *csvLine, in *Instance, _ int) { l.int(in.ValidPathsCount) }},
		{"failure", func(l *csvLine, in *Instance, _ int) { l.text(in.Failure) }},
		{"option", func(l *csvLine, in *Instance, _ int) { l.int(max(1, in.Option)) }},
	}
)

// CSVColumns are the columns of the CSV table, one line per instance and data column. The
// instance is named by file and line; original and counterfactual are in the data's own
// terms (numbers, or a category's name); attributions and epsilon (standardised) are summed
// over a categorical column's inputs; changed says whether the column's counterfactual value
// differs from the original, detour whether it ends unchanged yet carries an attribution
// (quce.Explanation.Detours); the columns after detour are the instance's own figures,
// repeated on each of its lines.
var CSVColumns = func() []string {
	var out []string
	for _, c := range append(append([]csvCell{}, lineCells...), instanceCells...) {
		out = append(out, c.name)
	}
	return out
}()

// CSV is the tidy long table of the instances, which pandas (read_csv) and R (read.csv) read
// as it is: the header (CSVColumns), then one line per instance and column (WriteCSVLines).
func CSV(ins []*Instance) ([]byte, error) {
	var b bytes.Buffer
	if err := WriteCSVHeader(&b); err != nil {
		return nil, err
	}
	if err := WriteCSVLines(&b, ins); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// WriteCSVHeader writes the CSV table's header line (CSVColumns).
func WriteCSVHeader(w io.Writer) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(CSVColumns); err != nil {
		return err
	}
	cw.Flush()
	return cw.Error()
}

// WriteCSVLines writes the CSV table's lines of the instances, a line per column, with
// numbers in full precision and NA for a number that is not finite (every figure of a
// failed row past its instance's).
func WriteCSVLines(w io.Writer, ins []*Instance) error {
	l := newCSVLine()
	for i, in := range ins {
		for _, o := range append([]*Instance{in}, in.Options...) {
			own := l.fields(func() {
				for _, c := range instanceCells {
					c.write(l, o, 0)
				}
			})
			for ci := range o.Columns {
				for _, c := range lineCells {
					c.write(l, o, ci)
				}
				l.raw(own)
				l.end()
			}
		}
		if len(l.buf) >= 1<<20 || i == len(ins)-1 {
			if _, err := w.Write(l.buf); err != nil {
				return err
			}
			l.buf = l.buf[:0]
		}
	}
	return nil
}
