package main

import (
	"github.com/quce-go/quce/pipeline"
	"github.com/quce-go/quce/plots"
	"github.com/quce-go/quce/quce"
)

func opts(s *pipeline.Setup) plots.Options { return plots.Options{} }

func mapPaths(ex *quce.Explanation) []plots.MapPath {
	p := ex.Path0()
	return []plots.MapPath{{Method: "quce", Points: p.Points}, {Method: "ig", Points: [][]float64{ex.X, p.Counterfactual}}}
}
