package eval

import (
	"math"
	"slices"

	"github.com/quce-go/quce/data"
)

// The metrics of several counterfactuals per row (quce.Config.Counterfactuals k > 1), for the
// methods with their own counterfactual; absent with k = 1 (docs/METHOD.md#several-counterfactuals).
// The diversities are DiCE's (Mothilal, Sharma and Tan, "Explaining machine learning
// classifiers through diverse counterfactual explanations", FAT* 2020, its evaluation
// metrics): see DiversityOf and CountDiversityOf.
const (
	// CounterfactualsPerRow is the number of distinct valid counterfactuals a row has (0 for
	// a failure, 1 for a method that gives one), the mean over every instance.
	CounterfactualsPerRow = "counterfactuals_per_row"
	// TwoOrMore is the share of instances with at least two distinct valid counterfactuals.
	TwoOrMore = "two_or_more"
	// DiversityContinuous and DiversityCategorical are DiCE's Diversity over the continuous
	// and over the categorical columns, CountDiversity DiCE's Count-Diversity: each per row
	// with two or more counterfactuals, the mean over those rows.
	DiversityContinuous  = "diversity_continuous"
	DiversityCategorical = "diversity_categorical"
	CountDiversity       = "count_diversity"
	// OptionsDistanceL1MinMax is the mean over a row's counterfactuals of their
	// DistanceL1MinMax to x, the mean over the valid rows: what the further options cost
	// beside the first (whose own is DistanceL1MinMax).
	OptionsDistanceL1MinMax = "options_distance_l1_minmax"
)

// MAD is, per input, the median absolute deviation of the rows x, median_i |x_if − m_f| with
// m_f the median of the input (the median of an even count the mean of its two middle values,
// as numpy's): the scale of DiCE's continuous distances, which dice_ml takes over the
// training data (get_mads). Where it is 0, as for an input equal in most rows, dice_ml's
// get_valid_mads takes 1 in the data's own units instead; unit[f] is that 1 in the units of x
// (1/Std[f] for standardised rows, whose MAD is the data's divided by Std[f]).
func MAD(x [][]float64, unit []float64) []float64 {
	mad := make([]float64, len(unit))
	v := make([]float64, len(x))
	for f := range mad {
		for i, r := range x {
			v[i] = r[f]
		}
		m := median(v)
		for i, r := range x {
			v[i] = math.Abs(r[f] - m)
		}
		if mad[f] = median(v); !(mad[f] > 0) {
			mad[f] = unit[f]
		}
	}
	return mad
}

// median is the median of v, which it sorts; NaN when v is empty.
func median(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	slices.Sort(v)
	n := len(v)
	if n%2 == 1 {
		return v[n/2]
	}
	return (v[n/2-1] + v[n/2]) / 2
}

// DiversityOf is DiCE's Diversity of one row's counterfactuals cfs: the mean over the pairs
// i < j of their distance, which DiCE computes apart for the two kinds of column:
//   - continuous, over the continuous and integer columns (DiCE's continuous features):
//     dist_cont(a, b) = the mean over them of |a_f − b_f| / mad_f, mad in the units of cfs
//     (see MAD);
//   - categorical, over the categorical, binary and ordinal columns (data.Column.IsCategory;
//     DiCE's categorical features, a categorical column's one-hot block one column):
//     dist_cat(a, b) = the share of them whose values differ (data.Column.Changed with
//     tolerance tol: any change beyond float32 rounding).
//
// Each is NaN where there is no pair or no column of its kind. Higher is more diverse.
func DiversityOf(cols []data.Column, cfs [][]float64, mad []float64, tol float64) (continuous, categorical float64) {
	var cont, cat []data.Column
	for _, c := range cols {
		if c.IsCategory() {
			cat = append(cat, c)
		} else {
			cont = append(cont, c)
		}
	}
	continuous, categorical = math.NaN(), math.NaN()
	if len(cont) > 0 {
		continuous = meanOverPairs(cfs, func(a, b []float64) float64 {
			s := 0.0
			for _, c := range cont {
				s += math.Abs(a[c.Start]-b[c.Start]) / mad[c.Start]
			}
			return s / float64(len(cont))
		})
	}
	if len(cat) > 0 {
		categorical = meanOverPairs(cfs, func(a, b []float64) float64 { return shareDiffering(cat, a, b, tol) })
	}
	return continuous, categorical
}

// CountDiversityOf is DiCE's Count-Diversity of one row's counterfactuals cfs: the share of the
// cells (pair i < j, column) whose values differ, over every column (data.Column.Changed
// with tolerance tol: a continuous column moved by more than tol, a discrete one at all, a
// categorical block once). NaN where there is no pair. Higher is more diverse.
func CountDiversityOf(cols []data.Column, cfs [][]float64, tol float64) float64 {
	return meanOverPairs(cfs, func(a, b []float64) float64 { return shareDiffering(cols, a, b, tol) })
}

// shareDiffering is the share of the columns cols in which b differs from a.
func shareDiffering(cols []data.Column, a, b []float64, tol float64) float64 {
	return float64(len(data.ChangedColumns(cols, a, b, tol))) / float64(len(cols))
}

// meanOverPairs is the mean of dist over the pairs i < j of rows; NaN with fewer than two.
func meanOverPairs(rows [][]float64, dist func(a, b []float64) float64) float64 {
	s, n := 0.0, 0
	for i := range rows {
		for j := i + 1; j < len(rows); j++ {
			s += dist(rows[i], rows[j])
			n++
		}
	}
	if n == 0 {
		return math.NaN()
	}
	return s / float64(n)
}

// several adds, with quce.Config.Counterfactuals above 1, the metrics of several
// counterfactuals to the per-instance metrics of every method with a counterfactual of its
// own: how many distinct valid ones the instance has (a method that gives one: its one valid
// counterfactual), their mean min-max ℓ1 distance to x, and with two or more their diversity,
// each continuous distance scaled by the training split's MAD.
func (s *split) several() {
	if s.o.Config.Counterfactuals <= 1 {
		return
	}
	cols, std := s.d.Explainer.Columns(), s.d.Explainer.Scaler().Std
	unit := make([]float64, len(std))
	for f, sd := range std {
		unit[f] = 1 / sd
	}
	mad := MAD(s.d.Train.X, unit)
	for _, m := range s.o.Methods {
		if !Applies(m, CountDiversity) {
			continue
		}
		for _, oc := range s.outs[m] {
			met := oc.res.Metrics // made by measure for every outcome of the chosen methods
			opts := oc.options
			if opts == nil && oc.res.Valid {
				opts = [][]float64{oc.res.Counterfactual}
			}
			met[CounterfactualsPerRow] = float64(len(opts))
			if len(opts) == 0 {
				continue
			}
			d := 0.0
			for _, o := range opts {
				l1, _, _ := MinMaxDistances(oc.x, o, s.lo, s.hi)
				d += l1 / float64(len(opts))
			}
			met[OptionsDistanceL1MinMax] = d
			if len(opts) < 2 {
				continue
			}
			cont, cat := DiversityOf(cols, opts, mad, s.o.SparsityTol)
			for key, v := range map[string]float64{DiversityContinuous: cont, DiversityCategorical: cat, CountDiversity: CountDiversityOf(cols, opts, s.o.SparsityTol)} {
				if !math.IsNaN(v) {
					met[key] = v
				}
			}
		}
	}
}
