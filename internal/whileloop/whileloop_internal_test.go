package whileloop

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/gomlx/gomlx/core/graph"

	"github.com/quce-go/quce/internal/modeltest"
)

// TestSwapMaps checks the swap of a backend builder's caches (as go-xla's has them) on a
// stand-in: the cache… maps are empty while a closure is built, the closure's entries go
// with them, and the main function's come back.
func TestSwapMaps(t *testing.T) {
	type builder struct {
		cacheReductions map[string]int
		cacheSelections map[int]string
		functions       map[string]int
	}
	b := &builder{cacheReductions: map[string]int{"sum": 1}, cacheSelections: map[int]string{1: "main"}, functions: map[string]int{"main": 0}}
	restore, swapped := swapMaps(reflect.ValueOf(b).Elem(), func(name string) bool { return strings.HasPrefix(name, "cache") })
	if !slices.Equal(swapped, []string{"cacheReductions", "cacheSelections"}) {
		t.Fatalf("swapped %q", swapped)
	}
	if len(b.cacheReductions) != 0 || len(b.cacheSelections) != 0 || len(b.functions) != 1 {
		t.Fatalf("while building: %+v; want empty caches and the other map as it was", b)
	}
	b.cacheReductions["sum"] = 2 // the closure's own
	restore()
	if b.cacheReductions["sum"] != 1 || len(b.cacheReductions) != 1 || b.cacheSelections[1] != "main" {
		t.Fatalf("after: %+v; want the main function's caches back", b)
	}
}

// TestGraphFields checks that GoMLX's Graph still has what freshCaches reaches for: its
// constant caches, and its backend builder behind an interface.
func TestGraphFields(t *testing.T) {
	g := graph.NewGraph(modeltest.Backend(t), "fields")
	defer g.Finalize()
	v := reflect.ValueOf(g).Elem()
	for _, name := range graphCaches {
		if f := v.FieldByName(name); !f.IsValid() || f.Kind() != reflect.Map {
			t.Errorf("graph.Graph has no map field %q", name)
		}
	}
	if b := v.FieldByName("builder"); !b.IsValid() || b.Kind() != reflect.Interface {
		t.Errorf("graph.Graph has no builder interface field")
	}
}
