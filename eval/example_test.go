package eval_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/quce-go/quce/eval"
	"github.com/quce-go/quce/pipeline"
)

// The paper's evaluation on W-BC: prepare the data and models (cached on disk), run every
// method on 100 train and 100 test instances, print the tables and write the JSON.
func Example() {
	s, err := pipeline.Prepare(pipeline.Options{SplitSeed: 1, CacheDir: pipeline.DefaultCacheDir()})
	if err != nil {
		log.Fatal(err)
	}
	o := eval.DefaultOptions() // N 100, train and test, every method, seed 1
	rep, err := eval.Run(context.Background(), eval.FromSetup(s), o)
	if err != nil {
		log.Fatal(err)
	}
	if err := rep.WriteTables(os.Stdout); err != nil {
		log.Fatal(err)
	}
	f, err := os.Create("eval.json")
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	if err := rep.WriteJSON(f); err != nil {
		log.Fatal(err)
	}
	fmt.Println(rep.Metrics[eval.QUCE][eval.Test][eval.PathUncertaintyMean] < rep.Metrics[eval.AGI][eval.Test][eval.PathUncertaintyMean])
}

func ExampleParseMethods() {
	ms, err := eval.ParseMethods("ig, QUCE, dice")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(ms)
	_, err = eval.ParseMethods("shap")
	fmt.Println(err)
	// Output:
	// [quce ig dice-random]
	// eval: unknown method "shap"; fix: use a comma-separated list of quce, quce-auto, ig, agi, wachter, dice-random (or all)
}

// The methods, as the tables name them and the plots' legends label and colour them.
func ExampleMethods() {
	for _, m := range eval.Methods() {
		r, g, b, _ := m.Color.RGBA()
		fmt.Printf("%-11s  %-13s  #%02x%02x%02x  default %v\n", m.Name, m.Label, r>>8, g>>8, b>>8, m.Default)
	}
	fmt.Println(eval.JoinMethods(eval.DefaultMethods(), ","))
	// Output:
	// quce         QUCE           #0072b2  default true
	// quce-auto    QUCE (auto λ)  #56b4e9  default true
	// ig           IG             #e69f00  default true
	// agi          AGI            #009e73  default true
	// wachter      Wachter        #cc79a7  default true
	// dice-random  DiCE (random)  #d55e00  default true
	// quce,quce-auto,ig,agi,wachter,dice-random
}
