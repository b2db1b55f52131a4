package report

import (
	"testing"

	"github.com/quce-go/quce/eval"
)

// The tables plots.Evaluation draws: a run's metrics as they are, and the means over seeds.
func TestTables(t *testing.T) {
	r := &eval.Report{Metrics: map[eval.Method]map[string]map[string]float64{
		eval.QUCE: {eval.Test: {eval.Validity: 0.9}}, eval.DiceRandom: {eval.Train: {eval.ProximityL1: 2}}}}
	got := EvaluationTable(r)
	if len(got) != 2 || got["quce"]["test"]["validity"] != 0.9 || got["dice-random"]["train"]["proximity_l1"] != 2 {
		t.Errorf("EvaluationTable = %v", got)
	}
	s := &eval.SeedSummary{Metrics: map[eval.Method]map[string]map[string]eval.Spread{
		eval.AGI: {eval.Test: {eval.Deletion: {Mean: 0.4, Std: 0.1, Seeds: 3}}}}}
	means := SeedMeansTable(s)
	if len(means) != 1 || len(means["agi"]["test"]) != 1 || means["agi"]["test"]["deletion"] != 0.4 {
		t.Errorf("SeedMeansTable = %v", means)
	}
}
