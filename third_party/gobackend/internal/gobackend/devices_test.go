// Copyright 2023-2026 The GoMLX Authors. SPDX-License-Identifier: Apache-2.0

package gobackend_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	"github.com/quce-go/quce/third_party/gobackend/internal/gobackend"
)

// TestVirtualDevices checks the "devices" option: the backend reports that many devices,
// buffers are made on and copied between them and remember which, an execution runs on the
// device asked for and puts its outputs there, and an input on another device, or a device
// that does not exist, is an error.
func TestVirtualDevices(t *testing.T) {
	for _, config := range []string{"devices=0", "devices=-1", "devices=two", "devices="} {
		if _, err := gobackend.New(config); err == nil || !strings.Contains(err.Error(), "whole number of devices") {
			t.Errorf("New(%q): error %v, want one that asks for a whole number of devices", config, err)
		}
	}
	one, err := gobackend.New("")
	if err != nil {
		t.Fatal(err)
	}
	defer one.Finalize()
	if n := one.NumDevices(); n != 1 {
		t.Errorf("default backend: %d devices, want 1", n)
	}
	if _, err := one.BufferFromFlatData(1, []float32{1}, shapes.Make(dtypes.Float32, 1)); err == nil ||
		!strings.Contains(err.Error(), "devices=N") {
		t.Errorf("device 1 of a one-device backend: error %v, want one that names the devices=N option", err)
	}

	be, err := gobackend.New("devices=3")
	if err != nil {
		t.Fatal(err)
	}
	defer be.Finalize()
	if n := be.NumDevices(); n != 3 {
		t.Fatalf("devices=3: %d devices", n)
	}
	if d := be.DeviceDescription(2); !strings.Contains(d, "device#2") || !strings.Contains(d, "virtual") {
		t.Errorf("DeviceDescription(2) = %q, want device#2, virtual", d)
	}
	if d := be.DeviceDescription(3); !strings.Contains(d, "no such device") {
		t.Errorf("DeviceDescription(3) = %q, want no such device", d)
	}

	shape := shapes.Make(dtypes.Float32, 2)
	onDevice := func(b compute.Buffer, want compute.DeviceNum) {
		t.Helper()
		if got, err := b.DeviceNum(); err != nil || got != want {
			t.Errorf("buffer on device %d (%v), want %d", got, err, want)
		}
	}
	for _, dev := range []compute.DeviceNum{3, -1} {
		if _, err := be.BufferFromFlatData(dev, []float32{1, 2}, shape); err == nil || !strings.Contains(err.Error(), "has 3 devices") {
			t.Errorf("BufferFromFlatData on device %d: error %v, want one that says the backend has 3 devices", dev, err)
		}
		if _, _, err := be.NewSharedBuffer(dev, shape); err == nil || !strings.Contains(err.Error(), "has 3 devices") {
			t.Errorf("NewSharedBuffer on device %d: error %v, want one that says the backend has 3 devices", dev, err)
		}
	}
	x0, err := be.BufferFromFlatData(0, []float32{1, 2}, shape)
	if err != nil {
		t.Fatal(err)
	}
	onDevice(x0, 0)
	shared, flat, err := be.NewSharedBuffer(1, shape)
	if err != nil {
		t.Fatal(err)
	}
	onDevice(shared, 1)
	copy(flat.([]float32), []float32{3, 4})

	// x + 1, compiled once, executed on each device.
	builder := be.Builder("plus_one")
	mainFn := builder.Main()
	x, err := mainFn.Parameter("x", shape, nil)
	if err != nil {
		t.Fatal(err)
	}
	one32, err := mainFn.Constant([]float32{1, 1}, 2)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := mainFn.Add(x, one32)
	if err != nil {
		t.Fatal(err)
	}
	if err := mainFn.Return([]compute.Value{sum}, nil); err != nil {
		t.Fatal(err)
	}
	exe, err := builder.Compile()
	if err != nil {
		t.Fatal(err)
	}
	run := func(in compute.Buffer, dev compute.DeviceNum, want []float32) {
		t.Helper()
		out, err := exe.Execute([]compute.Buffer{in}, nil, dev)
		if err != nil {
			t.Fatalf("Execute on device %d: %v", dev, err)
		}
		onDevice(out[0], dev)
		got := make([]float32, 2)
		if err := out[0].ToFlatData(got); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Errorf("device %d: %v, want %v", dev, got, want)
		}
	}
	run(x0, 0, []float32{2, 3})
	run(shared, 1, []float32{4, 5})
	if _, err := exe.Execute([]compute.Buffer{x0}, nil, 2); err == nil || !strings.Contains(err.Error(), "is on device 0") {
		t.Errorf("input on device 0, executed on device 2: error %v, want one that says where the input is", err)
	}
	if _, err := exe.Execute([]compute.Buffer{x0}, nil, 3); err == nil || !strings.Contains(err.Error(), "has 3 devices") {
		t.Errorf("executed on device 3: error %v, want one that says the backend has 3 devices", err)
	}

	x2, err := x0.CopyToDevice(2)
	if err != nil {
		t.Fatal(err)
	}
	onDevice(x2, 2)
	onDevice(x0, 0)
	run(x2, 2, []float32{2, 3})
	run(x0, 0, []float32{2, 3})
	if _, err := x0.CopyToDevice(3); err == nil || !strings.Contains(err.Error(), "has 3 devices") {
		t.Errorf("CopyToDevice(3): error %v, want one that says the backend has 3 devices", err)
	}
}
