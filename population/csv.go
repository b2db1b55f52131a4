package population

import (
	"bytes"
	"encoding/csv"
	"math"
	"slices"
	"strconv"
)

// CSVColumns are the columns of a summary's CSV table (Summary.CSV): one row per data
// column and scope, the rows of all the rows (group "all") first; the scope's own figures
// are repeated on each of its rows.
var CSVColumns = []string{
	"group_by", "group", "column", "changed", "change_rate", "mean_change",
	"mean_abs_attribution", "mean_abs_attribution_minus", "mean_abs_attribution_plus", "transitions",
	"rows", "already_target", "searched", "valid", "left_group",
	"validity", "validity_lo", "validity_hi", "cost_l1", "cost_l1_lo", "cost_l1_hi",
	"cost_l0", "cost_l0_lo", "cost_l0_hi", "cost_l1_data", "cost_l1_data_lo", "cost_l1_data_hi",
	"cf_uncertainty", "cf_uncertainty_lo", "cf_uncertainty_hi",
}

// CSV is the summary as a table with the columns CSVColumns, groupBy naming the grouping
// column ("" without groups): numbers in full precision, NA where one is not defined.
func (s *Summary) CSV(groupBy string) ([]byte, error) {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	if err := w.Write(CSVColumns); err != nil {
		return nil, err
	}
	full := func(v Number) string {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return "NA"
		}
		return strconv.FormatFloat(float64(v), 'g', -1, 64)
	}
	for _, sc := range slices.Concat([]Scope{s.Overall}, s.Groups) {
		own := []string{strconv.Itoa(sc.Rows), strconv.Itoa(sc.AlreadyTarget), strconv.Itoa(sc.Searched), strconv.Itoa(sc.Valid), strconv.Itoa(sc.LeftGroup)}
		for _, m := range Measures {
			e := sc.Measure(m)
			own = append(own, full(e.Mean), full(e.Lo), full(e.Hi))
		}
		for _, c := range sc.Columns {
			rec := []string{groupBy, sc.Name, c.Column, strconv.Itoa(c.Changed), full(c.ChangeRate), full(c.MeanChange),
				full(c.MeanAbsAttribution), full(c.MeanAbsMinus), full(c.MeanAbsPlus), c.TransitionsText()}
			if err := w.Write(append(rec, own...)); err != nil {
				return nil, err
			}
		}
	}
	w.Flush()
	return b.Bytes(), w.Error()
}
