package gonbext

import (
	"fmt"

	"github.com/quce-go/quce/pipeline"
	"github.com/quce-go/quce/plots"
	"github.com/quce-go/quce/quce"
)

// ShowFront displays the candidates automatic λ (quce.Config.Auto) saw for ex: distance
// against uncertainty, the plausibility bound and the chosen candidate.
func ShowFront(s *pipeline.Setup, ex *quce.Explanation) error {
	if ex.Auto == nil {
		return fmt.Errorf("gonbext: this explanation used fixed λ, so it has no candidates to show; fix: explain with a configuration from s.WithPlausibility with Auto set (quce.DefaultAuto())")
	}
	svg, err := plots.Front(ex.Auto, plots.Options{Classes: s.Data.Labels})
	if err != nil {
		return err
	}
	return display("front", svgFragment(svg))
}
