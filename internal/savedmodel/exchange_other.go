//go:build !linux

package savedmodel

import "errors"

// exchange is only atomic on Linux; elsewhere the caller moves the old folder aside first.
var exchange = func(a, b string) error { return errors.ErrUnsupported }
