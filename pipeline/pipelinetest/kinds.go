package pipelinetest

import (
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	"github.com/quce-go/quce/data"
	"github.com/quce-go/quce/onnxmodel"
	"github.com/quce-go/quce/pipeline"
	"github.com/quce-go/quce/quce"
)

// Fixture is the path of a file under testdata/.
func Fixture(name string) string { return filepath.Join(Root(), "testdata", name) }

// Kind is one kind of model the explainer takes, with the data it was trained on.
type Kind struct {
	Name  string
	Setup func(testing.TB) *pipeline.Setup
}

// Kinds lists the model kinds that the explainer's tests run on: the built-in classifier
// (binary on W-BC, multi-class on Iris), a GoMLX model given as a store and a model function,
// and ONNX files exported from PyTorch (raw inputs with standardisation inside; logits and
// probabilities; binary and 3-class).
func Kinds() []Kind {
	return []Kind{
		{"builtin-wbc", WBC},
		{"builtin-iris", prepareOnce("builtin-iris", func() (pipeline.Options, error) {
			ds, err := Iris()
			return pipeline.Options{Data: ds}, err
		})},
		{"gomlx-wbc", prepareOnce("gomlx-wbc", func() (pipeline.Options, error) {
			m, err := WBCGoMLX(true)
			return pipeline.Options{Model: m, ModelInput: quce.Raw}, err
		})},
		{"onnx-wbc-raw-logit", onnxKind("wbc_raw.onnx", quce.Logits, false)},
		{"onnx-wbc-raw-probability", onnxKind("wbc_prob.onnx", quce.Probabilities, false)},
		{"onnx-iris-logit", onnxKind("iris.onnx", quce.Logits, true)},
		{"onnx-iris-probability", onnxKind("iris_prob.onnx", quce.Probabilities, true)},
	}
}

// Iris loads testdata/iris.csv (150 rows, 4 features, 3 classes).
func Iris() (*data.Dataset, error) { return data.Load(Fixture("iris.csv"), data.LoadOptions{}) }

// WBCStd is W-BC with the network of wbc_std.onnx taking standardised inputs, as ONNX
// (onnx true) or as the GoMLX model WBCGoMLX(false): the same function either way.
func WBCStd(onnx bool) func(testing.TB) *pipeline.Setup {
	if onnx {
		return onnxKindUnits("wbc_std.onnx", quce.Standardized, quce.Logits, false)
	}
	return WBCStdWide(16)
}

// WBCStdWide is WBCStd's GoMLX model with hidden hidden units (WBCGoMLXWide): the same
// function.
func WBCStdWide(hidden int) func(testing.TB) *pipeline.Setup {
	return prepareOnce(fmt.Sprintf("gomlx-wbc-std-%d", hidden), func() (pipeline.Options, error) {
		m, err := WBCGoMLXWide(false, hidden)
		return pipeline.Options{Model: m, ModelInput: quce.Standardized}, err
	})
}

func onnxKind(file string, out quce.Outputs, iris bool) func(testing.TB) *pipeline.Setup {
	return onnxKindUnits(file, quce.Raw, out, iris)
}

func onnxKindUnits(file string, in quce.Units, out quce.Outputs, iris bool) func(testing.TB) *pipeline.Setup {
	return prepareOnce(file, func() (pipeline.Options, error) {
		m, err := onnxmodel.Load(Fixture(filepath.Join("models", file)), onnxmodel.Options{})
		if err != nil {
			return pipeline.Options{}, err
		}
		o := pipeline.Options{Model: m, ModelInput: in, ModelOutput: out, ModelID: file}
		if iris {
			o.Data, err = Iris()
		}
		return o, err
	})
}

var (
	kindMu    sync.Mutex
	kindCache = map[string]*kindResult{}
)

type kindResult struct {
	once sync.Once
	s    *pipeline.Setup
	err  error
}

// prepareOnce prepares a kind's setup once per test binary (models cached on disk as for WBC).
func prepareOnce(name string, opts func() (pipeline.Options, error)) func(testing.TB) *pipeline.Setup {
	return func(t testing.TB) *pipeline.Setup {
		t.Helper()
		kindMu.Lock()
		r, ok := kindCache[name]
		if !ok {
			r = &kindResult{}
			kindCache[name] = r
		}
		kindMu.Unlock()
		r.once.Do(func() {
			o, err := opts()
			if err != nil {
				r.err = err
				return
			}
			o.SplitSeed, o.CacheDir = 1, CacheDir()
			r.s, r.err = pipeline.Prepare(o)
		})
		if r.err != nil {
			t.Fatalf("%s: %v", name, r.err)
		}
		return r.s
	}
}

// KindNamed is the kind of Kinds with that name; it fails the test when there is none.
func KindNamed(t testing.TB, name string) *pipeline.Setup {
	t.Helper()
	for _, k := range Kinds() {
		if k.Name == name {
			return k.Setup(t)
		}
	}
	t.Fatalf("no model kind %q", name)
	return nil
}

// German is the embedded German credit data (13 categorical, 7 integer columns) with the
// default models.
var German = prepareOnce("builtin-german", func() (pipeline.Options, error) {
	return pipeline.Options{Data: data.GermanCredit()}, nil
})
