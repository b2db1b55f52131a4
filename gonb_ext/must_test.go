package gonbext

import (
	"errors"
	"testing"
)

func TestMustAndCheck(t *testing.T) {
	boom := errors.New("boom")
	for _, tc := range []struct {
		name  string
		run   func()
		panic error
	}{
		{"Must passes the value", func() {
			if v := Must(7, nil); v != 7 {
				t.Errorf("Must(7, nil) = %d", v)
			}
		}, nil},
		{"Must stops on an error", func() { Must(7, boom) }, boom},
		{"Check passes nil", func() { Check(nil) }, nil},
		{"Check stops on an error", func() { Check(boom) }, boom},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				got := recover()
				if got != tc.panic && (tc.panic == nil || got.(error) != tc.panic) {
					t.Errorf("panic %v, want %v", got, tc.panic)
				}
			}()
			tc.run()
		})
	}
}
