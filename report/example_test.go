package report_test

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/quce-go/quce/data"
	"github.com/quce-go/quce/quce"
	"github.com/quce-go/quce/report"
)

// One explanation's view, as its JSON, its CSV table and its text report show it: a
// counterfactual that changes the colour and leaves the age as it was.
func ExampleNewInstance() {
	cols := []data.Column{
		{Name: "colour", Type: data.Categorical, Levels: []string{"red", "green"}, Start: 0, Width: 2},
		{Name: "age", Type: data.Continuous, Start: 2, Width: 1},
	}
	p := &quce.Path{
		Counterfactual: []float64{0, 1, 0.5}, CounterfactualOriginal: []float64{0, 1, 40},
		ProbEnd: 0.7, RelaxedProb: 0.7, Margin: 0.2, Valid: true, Steps: 12,
		Attribution: []float64{0, 0.5, 0}, AttributionPlus: []float64{0.01, 0.02, 0},
		AttributionMinus: []float64{-0.01, -0.02, 0}, Epsilon: []float64{0.1, 0.1, 0.2},
	}
	e := &quce.Explanation{
		Target: 1, PredictedClass: 0, Probabilities: []float64{0.8, 0.2},
		X: []float64{1, 0, 0.5}, XOriginal: []float64{1, 0, 40}, ProbStart: 0.2, Paths: []*quce.Path{p},
		Attribution: p.Attribution, AttributionStd: []float64{0, 0, 0},
		AttributionPlus: p.AttributionPlus, AttributionMinus: p.AttributionMinus,
	}
	in := report.NewInstance(cols, []string{"no", "yes"}, e, report.Source{File: "people.csv", Line: 7, Split: "test"})
	b, _ := json.Marshal(map[string]any{"changed_features": in.ChangedFeatures, "attribution": in.Attribution, "valid": in.Valid})
	fmt.Println(string(b))
	table, _ := report.CSV([]*report.Instance{in})
	fmt.Print(string(table))
	report.WriteText(os.Stdout, []*report.Instance{in}, 2)
	// Output:
	// {"attribution":[0.5,0],"changed_features":["colour"],"valid":true}
	// file,line,split,column,rank,original,counterfactual,attribution,attribution_std,attribution_plus,attribution_minus,epsilon,changed,detour,predicted_class,target_class,prob_target_start,prob_target_end,margin,valid,unseen_combination,already_target,completeness_gap,cf_uncertainty,cf_uncertainty_paper,path_uncertainty,path_uncertainty_paper,path_steps,paths,valid_paths_count,failure,option
	// people.csv,7,test,colour,1,red,green,0.5,0,0.03,-0.03,0.2,true,false,no,yes,0.2,0.7,0.2,true,,false,0,0,0,0,0,12,1,1,,1
	// people.csv,7,test,age,2,40,40,0,0,0,0,0.2,false,false,no,yes,0.2,0.7,0.2,true,,false,0,0,0,0,0,12,1,1,,1
	//
	// line 7 of people.csv (test split): predicted "no", target "yes": F(target) 0.2000 -> 0.7000, valid (12 steps, completeness gap 0.0e+00)
	//   1 of 2 columns changed: colour: red → green
	//   column  original  -> counterfactual  attribution  Φ−       Φ+
	//   colour  red       -> green           +0.5000      -0.0300  +0.0300
	//   age     40        -> 40              +0.0000      +0.0000  +0.0000
}
