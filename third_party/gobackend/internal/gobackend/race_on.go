// Copyright 2023-2026 The GoMLX Authors. SPDX-License-Identifier: Apache-2.0

//go:build race

package gobackend

// raceEnabled: built with the race detector (see localBuffers).
const raceEnabled = true
