package pipeline_test

import (
	"context"
	"fmt"
	"log"

	"github.com/quce-go/quce/data"
	"github.com/quce-go/quce/pipeline"
	"github.com/quce-go/quce/quce"
)

// Preparing is two stages: a plan (the data, its split and scaler) on which what a caller
// asks for is checked before any model is trained, then the training. Here a constraint
// naming no column is refused at once, and the rows of the plan's test split are those the
// trained explainer gets.
func ExampleNewPlan() {
	p, err := pipeline.NewPlan(pipeline.Options{Data: data.WBC(), SplitSeed: 1, CacheDir: pipeline.DefaultCacheDir()})
	if err != nil {
		log.Fatal(err)
	}
	bad := quce.CheckConstraints(p.Data.Columns, quce.Constraints{Frozen: []string{"no such column"}})
	fmt.Println("refused before training:", bad != nil)
	s, err := p.Train(context.Background())
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("the same split:", len(s.TestIdx) == len(p.TestIdx) && s.TestIdx[0] == p.TestIdx[0])
	// Output:
	// refused before training: true
	// the same split: true
}
