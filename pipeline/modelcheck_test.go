package pipeline_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/quce-go/quce/classifier"
	"github.com/quce-go/quce/data"
	"github.com/quce-go/quce/onnxmodel"
	. "github.com/quce-go/quce/pipeline"
	"github.com/quce-go/quce/pipeline/pipelinetest"
	"github.com/quce-go/quce/vae"
)

// A 3-class model read with its classes in a wrong order is refused before any training,
// with the order that fits found from the confusion matrix; a wrong ModelClasses is an
// error naming the option and the data's labels.
func TestModelCheckClassOrder(t *testing.T) {
	iris, err := pipelinetest.Iris()
	if err != nil {
		t.Fatal(err)
	}
	m, err := onnxmodel.Load(pipelinetest.Fixture("models/iris.onnx"), onnxmodel.Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = Prepare(Options{Data: iris, Model: m, SplitSeed: 1, ModelClasses: []string{"versicolor", "virginica", "setosa"}})
	var oe *OptionError
	if !errors.As(err, &oe) || oe.Check == nil {
		t.Fatalf("error %v: want an *OptionError with the check", err)
	}
	chk := oe.Check
	if !chk.Weak || !slices.Equal(chk.BestClasses, iris.Labels) || chk.BestAccuracy < chk.Accuracy+ClearMargin || chk.Rows != 120 {
		t.Errorf("check %+v: want weak, the best order %v", chk, iris.Labels)
	}
	for _, w := range []string{"Options.ModelClasses setosa,versicolor,virginica", "iris.onnx", "Options.AllowWeakModel", fmt.Sprintf("%.3f", chk.Accuracy)} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q lacks %q", err, w)
		}
	}
	// AllowWeakModel explains it anyway, with a warning.
	s, err := Prepare(Options{Data: iris, Model: m, SplitSeed: 1, ModelClasses: []string{"versicolor", "virginica", "setosa"},
		AllowWeakModel: true, CacheDir: pipelinetest.CacheDir()})
	if err != nil {
		t.Fatal(err)
	}
	if !s.ModelCheck.Weak || !s.ModelCheck.AllowedWeak || !slices.ContainsFunc(s.Warnings, func(w string) bool { return strings.Contains(w, "explained anyway") }) {
		t.Errorf("check %+v, warnings %q: want the weak model explained with a warning", s.ModelCheck, s.Warnings)
	}
	for _, tc := range []struct {
		classes []string
		want    string
	}{
		{[]string{"setosa", "versicolor"}, "names 2 classes"},
		{[]string{"setosa", "versicolor", "rose"}, `"rose" is not a class`},
		{[]string{"setosa", "setosa", "virginica"}, `"setosa" twice`},
	} {
		_, err := Prepare(Options{Data: iris, Model: m, SplitSeed: 1, ModelClasses: tc.classes})
		for _, w := range []string{tc.want, "Options.ModelClasses", "setosa,versicolor,virginica", "fix:"} {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("ModelClasses %v: error %v lacks %q", tc.classes, err, w)
			}
		}
	}
	// They, and a model scaler, describe a user's model: without one they are refused.
	_, err = Prepare(Options{Data: iris, SplitSeed: 1, ModelClasses: iris.Labels})
	if err == nil || !strings.Contains(err.Error(), "Options.Model") {
		t.Errorf("ModelClasses without a model: error %v", err)
	}
}

// The built-in classifier is scored too; on data it cannot learn from it is only warned
// about, in Setup.Warnings.
func TestModelCheckWarnsOfAWeakBuiltIn(t *testing.T) {
	var csv strings.Builder
	csv.WriteString("x,noise,label\n")
	for i := range 60 {
		label := "a"
		if i%3 == 0 {
			label = "b"
		}
		fmt.Fprintf(&csv, "1,%d,%s\n", i%2, label) // the features say nothing of the label
	}
	ds, err := data.Parse(strings.NewReader(csv.String()), "flat.csv", data.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	clf, v := classifier.DefaultConfig(), vae.DefaultConfig()
	clf.Epochs, v.MaxEpochs, v.Latent = 2, 2, 1
	s, err := Prepare(Options{Data: ds, SplitSeed: 1, Classifier: clf, VAE: v, AllowWeakModel: false})
	if err != nil {
		t.Fatal(err)
	}
	chk := s.ModelCheck
	if chk == nil || !chk.BuiltIn || !chk.Weak || chk.MajorityClass != "a" || s.TrainAccuracy != chk.Accuracy {
		t.Fatalf("check %+v (train accuracy %v): want the built-in classifier found weak against class a", chk, s.TrainAccuracy)
	}
	if !slices.ContainsFunc(s.Warnings, func(w string) bool { return strings.Contains(w, "built-in classifier is weak") }) {
		t.Errorf("warnings %q lack the weak classifier", s.Warnings)
	}
}
