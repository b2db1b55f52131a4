package gomlxmodel_test

import (
	"errors"
	"strings"
	"testing"

	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/ml/model"

	"github.com/quce-go/quce/gomlxmodel"
)

// A model function that panics is an error of New that says why, whatever it panics with.
func TestPanickingModelFunction(t *testing.T) {
	for _, tc := range []struct {
		name  string
		value any
	}{
		{"a string", "weights not loaded"},
		{"an error", errors.New("weights not loaded")},
		{"another value", struct{ Why string }{"weights not loaded"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			store := model.NewStore()
			store.RootScope().VariableWithValue("weights", [][]float32{{1}, {2}})
			_, err := gomlxmodel.New(store, func(scope *model.Scope, x *Node) *Node { panic(tc.value) }, 2)
			if err == nil || !strings.Contains(err.Error(), "weights not loaded") || !strings.Contains(err.Error(), "fix:") {
				t.Fatalf("error %v; want one that gives the panic and the fix", err)
			}
		})
	}
}
