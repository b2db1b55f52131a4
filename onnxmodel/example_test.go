package onnxmodel_test

import (
	"fmt"

	"github.com/quce-go/quce/onnxmodel"
)

// ExampleLoad loads a 3-class Iris classifier exported from PyTorch (standardisation inside,
// 4 → 16 → ReLU → 3 logits).
func ExampleLoad() {
	m, err := onnxmodel.Load("../testdata/models/iris.onnx", onnxmodel.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("input:", m.InputName(), "output:", m.OutputName())
	fmt.Println("features:", m.NumFeatures(), m.FeatureNames())
	fmt.Println("outputs:", m.NumOutputs())
	// Output:
	// input: x output: logit
	// features: 4 [sepal_length sepal_width petal_length petal_width]
	// outputs: 3
}
