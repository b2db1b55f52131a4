package data

import (
	"strings"
	"testing"
)

func TestClassIndex(t *testing.T) {
	labels := []string{"good", "bad"}
	for _, tc := range []struct {
		name string
		want int
	}{{"", NoClass}, {"good", 0}, {"bad", 1}} {
		if got, err := ClassIndex(labels, tc.name); err != nil || got != tc.want {
			t.Errorf("ClassIndex(%q) = %d, %v; want %d", tc.name, got, err, tc.want)
		}
	}
	_, err := ClassIndex(labels, "Good")
	if err == nil || !strings.Contains(err.Error(), `"Good" names no class`) || !strings.Contains(err.Error(), `["good" "bad"]`) {
		t.Errorf("an unknown class: %v; want an error naming the class and the classes", err)
	}
}
