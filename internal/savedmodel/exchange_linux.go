package savedmodel

import "golang.org/x/sys/unix"

// exchange swaps the two paths in one atomic step (renameat2 with RENAME_EXCHANGE; Linux
// 3.15+, on most local file systems). The caller falls back to two renames when it fails.
// It is a variable so tests can take the fallback.
var exchange = func(a, b string) error {
	return unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
}
