package classifier_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/quce-go/quce/backend"
	"github.com/quce-go/quce/classifier"
	"github.com/quce-go/quce/data"
)

func wbcSplit(t testing.TB) (xtr, xte [][]float32, ytr, yte []int) {
	t.Helper()
	ds := data.WBC()
	tr, te, err := data.Split(ds, 0.2, 1)
	if err != nil {
		t.Fatal(err)
	}
	train, test := ds.Subset(tr), ds.Subset(te)
	sc := data.FitScaler(train.X)
	return data.ToFloat32(sc.Transform(train.X)), data.ToFloat32(sc.Transform(test.X)), train.Y, test.Y
}

func TestTrainAccuracyAndSaveLoad(t *testing.T) {
	b, _, err := backend.Default()
	if err != nil {
		t.Fatal(err)
	}
	xtr, xte, ytr, yte := wbcSplit(t)
	c, err := classifier.Train(b, xtr, ytr, classifier.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	acc, err := c.Accuracy(b, xte, yte)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("W-BC test accuracy %.4f", acc)
	if acc < 0.95 {
		t.Errorf("test accuracy %.4f < 0.95", acc)
	}
	path := filepath.Join(t.TempDir(), "clf.json")
	if err := c.Save(path); err != nil {
		t.Fatal(err)
	}
	c2, err := classifier.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	p1, _ := c.Probabilities(b, xte)
	p2, err := c2.Probabilities(b, xte)
	if err != nil {
		t.Fatal(err)
	}
	for i := range p1 {
		if p1[i] != p2[i] {
			t.Fatalf("row %d: loaded model predicts %v, original %v", i, p2[i], p1[i])
		}
	}
}

func TestWrongFeatureCount(t *testing.T) {
	b, _, _ := backend.Default()
	xtr, _, ytr, _ := wbcSplit(t)
	cfg := classifier.DefaultConfig()
	cfg.Epochs = 1
	c, err := classifier.Train(b, xtr, ytr, cfg)
	if err != nil {
		t.Fatal(err)
	}
	short := [][]float32{xtr[0][:29]}
	if _, err := c.Probabilities(b, short); err == nil || !strings.Contains(err.Error(), "row 0 has 29 features, the model was trained on 30") {
		t.Errorf("29 features into a 30-feature model: %v", err)
	}
}
