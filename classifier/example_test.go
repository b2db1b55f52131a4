package classifier_test

import (
	"fmt"
	"log"
	"math"
	"os"
	"path/filepath"
	"slices"

	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/gomlx/gomlx/ml/model/checkpoint"

	"github.com/quce-go/quce/backend"
	"github.com/quce-go/quce/classifier"
	"github.com/quce-go/quce/data"
)

// A saved classifier is a plain GoMLX checkpoint: a user's own GoMLX code loads it into a
// store with checkpoint.Load and runs it with the classifier's model function.
func Example_loadWithGoMLX() {
	b, _, err := backend.Default()
	if err != nil {
		log.Fatal(err)
	}
	ds := data.WBC()
	trainIdx, _, err := data.Split(ds, 0.2, 1)
	if err != nil {
		log.Fatal(err)
	}
	train := ds.Subset(trainIdx)
	X := data.ToFloat32(data.FitScaler(train.X).Transform(train.X))
	cfg := classifier.DefaultConfig()
	cfg.Epochs = 10
	clf, err := classifier.Train(b, X, train.Y, ds.NumClasses(), cfg)
	if err != nil {
		log.Fatal(err)
	}
	tmp, err := os.MkdirTemp("", "classifier-example-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	dir := filepath.Join(tmp, "wbc-classifier")
	if err := clf.Save(dir); err != nil {
		log.Fatal(err)
	}

	// The user's side: GoMLX only.
	store := model.NewStore()
	if _, err := checkpoint.Load(store).Dir(dir).Done(); err != nil {
		log.Fatal(err)
	}
	logits, err := model.CallOnce(b, store, clf.ModelFn(), X[:5])
	if err != nil {
		log.Fatal(err)
	}
	theirs, err := tensors.CopyFlatData[float32](logits)
	if err != nil {
		log.Fatal(err)
	}

	ours, err := clf.Logits(b, X[:5])
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("features:", clf.NumFeatures())
	fmt.Println("logits shape:", logits.Shape().Dimensions)
	// The same function of the same weights; a backend may order a sum differently in the
	// two programs (ONNX Runtime does), so they agree to float32 rounding, not always bits.
	agree := true
	for i, v := range slices.Concat(ours...) {
		agree = agree && math.Abs(float64(v-theirs[i])) <= 1e-5*max(1, math.Abs(float64(v)))
	}
	fmt.Println("logits agree:", agree)
	// Output:
	// features: 30
	// logits shape: [5 1]
	// logits agree: true
}
