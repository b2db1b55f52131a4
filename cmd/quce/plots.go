package main

import (
	"fmt"

	"github.com/quce-go/quce/pipeline"
	"github.com/quce-go/quce/quce"
)

func writeExplainPlots(f *explainFlags, s *pipeline.Setup, ex []*quce.Explanation, idx []int) error {
	return fmt.Errorf("-svg: not wired yet")
}
