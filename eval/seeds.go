package eval

import (
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"
)

// Spread is a metric's mean and standard deviation (population form, as MeanStd) over the
// seeds that measured it.
type Spread struct {
	Mean  float64 `json:"mean"`
	Std   float64 `json:"std"`
	Seeds int     `json:"seeds"` // how many seeds measured it
}

// SeedSummary is an evaluation repeated with several seeds (each seed a new split, new
// models, new search offsets and new instances), summarised per method, split and metric.
type SeedSummary struct {
	Dataset string                                  `json:"dataset"`
	Seeds   []uint64                                `json:"seeds"`
	Methods []Method                                `json:"methods"`
	Splits  []string                                `json:"splits"`
	Metrics map[Method]map[string]map[string]Spread `json:"metrics"`

	counterfactuals int // quce.Config.Counterfactuals of the reports, for their tables (tablesFor)
}

// Summarize combines the reports of one evaluation run with each of seeds (reports[i] with
// seeds[i]); they must evaluate the same methods and splits.
func Summarize(seeds []uint64, reports []*Report) (*SeedSummary, error) {
	if len(reports) == 0 || len(seeds) != len(reports) {
		return nil, fmt.Errorf("eval: %d reports for %d seeds; fix: pass one report per seed", len(reports), len(seeds))
	}
	first := reports[0]
	sum := &SeedSummary{Dataset: first.Dataset, Seeds: seeds, Methods: first.Methods, Splits: first.Splits,
		Metrics: map[Method]map[string]map[string]Spread{}, counterfactuals: first.Settings.Config.Counterfactuals}
	for _, r := range reports[1:] {
		if fmt.Sprint(r.Methods, r.Splits) != fmt.Sprint(first.Methods, first.Splits) {
			return nil, fmt.Errorf("eval: the reports evaluate different methods or splits (%v %v and %v %v)", first.Methods, first.Splits, r.Methods, r.Splits)
		}
	}
	for _, m := range first.Methods {
		sum.Metrics[m] = map[string]map[string]Spread{}
		for _, s := range first.Splits {
			sum.Metrics[m][s] = map[string]Spread{}
			for _, key := range MetricKeys {
				var v []float64
				for _, r := range reports {
					if x, ok := r.Metrics[m][s][key]; ok && !math.IsNaN(x) && !math.IsInf(x, 0) {
						v = append(v, x)
					}
				}
				if len(v) > 0 {
					mean, std := MeanStd(v)
					sum.Metrics[m][s][key] = Spread{Mean: mean, Std: std, Seeds: len(v)}
				}
			}
		}
	}
	return sum, nil
}

// WriteTables prints one table per metric, methods as rows and splits as columns, each
// cell "mean ± sd" over the seeds.
func (s *SeedSummary) WriteTables(w io.Writer) error {
	b := &strings.Builder{}
	seeds := make([]string, len(s.Seeds))
	for i, x := range s.Seeds {
		seeds[i] = fmt.Sprint(x)
	}
	fmt.Fprintf(b, "QUCE evaluation on %s over seeds %s (split, models, search and instances): mean ± sd across seeds\n", s.Dataset, strings.Join(seeds, ", "))
	for _, t := range tablesFor(s.counterfactuals) {
		fmt.Fprintf(b, "\n%s\n", t.title)
		tw := tabwriter.NewWriter(b, 0, 0, 3, ' ', 0)
		fmt.Fprintln(tw, "method\t"+strings.Join(s.Splits, "\t"))
		for _, m := range s.Methods {
			row := []string{string(m)}
			for _, split := range s.Splits {
				v, ok := s.Metrics[m][split][t.key]
				switch {
				case !Applies(m, t.key):
					row = append(row, "—")
				case !ok:
					row = append(row, "n/a")
				default:
					cell := fmt.Sprintf(t.format+" ± "+t.format, v.Mean, v.Std)
					if v.Seeds < len(s.Seeds) {
						cell += fmt.Sprintf(" (%d seeds)", v.Seeds)
					}
					row = append(row, cell)
				}
			}
			fmt.Fprintln(tw, strings.Join(row, "\t"))
		}
		tw.Flush()
	}
	_, err := io.WriteString(w, b.String())
	return err
}
