package report

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// JSON keeps flat arrays on one line and otherwise writes what json.Marshal does.
func TestJSON(t *testing.T) {
	v := map[string]any{
		"a": []float64{1, 2.5, -3}, "s": []string{"x,[y]", `q"{`}, "m": [][]int{{1, 2}, {3}},
		"o": map[string]any{"e": []int{}, "n": nil, "z": map[string]int{}}, "t": "a:b,c",
	}
	b, err := JSON(v)
	if err != nil {
		t.Fatal(err)
	}
	var back, want any
	json.Unmarshal(b, &back)
	plain, _ := json.Marshal(v)
	json.Unmarshal(plain, &want)
	if !reflect.DeepEqual(back, want) {
		t.Errorf("JSON changed the value:\n%s", b)
	}
	for _, line := range []string{`"a": [1, 2.5, -3]`, `"s": ["x,[y]", "q\"{"]`, `  [1, 2],`, `"e": [],`} {
		if !strings.Contains(string(b), line) {
			t.Errorf("output lacks %q:\n%s", line, b)
		}
	}
}
