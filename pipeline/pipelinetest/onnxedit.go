package pipelinetest

import (
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/gomlx/compute-onnx/support/protos"
	"google.golang.org/protobuf/proto"
)

// EditedONNX writes, into a temporary folder, a copy of the ONNX fixture (a path under
// testdata/) whose float32 weight (initializer) called weight is changed by edit, and
// returns the copy's path: a broken model made from a real one, with no binary fixture.
func EditedONNX(tb testing.TB, fixture, weight string, edit func(values []float32)) string {
	tb.Helper()
	b, err := os.ReadFile(Fixture(fixture))
	if err != nil {
		tb.Fatal(err)
	}
	var mp protos.ModelProto
	if err := proto.Unmarshal(b, &mp); err != nil {
		tb.Fatal(err)
	}
	for _, in := range mp.GetGraph().GetInitializer() {
		if in.GetName() != weight {
			continue
		}
		if in.GetDataType() != int32(protos.TensorProto_FLOAT) {
			tb.Fatalf("%s: weight %q is not float32", fixture, weight)
		}
		vals := in.GetFloatData()
		if raw := in.GetRawData(); len(raw) > 0 {
			vals = make([]float32, len(raw)/4)
			for i := range vals {
				vals[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
			}
		}
		edit(vals)
		if len(in.GetRawData()) > 0 {
			for i, v := range vals {
				binary.LittleEndian.PutUint32(in.RawData[4*i:], math.Float32bits(v))
			}
		}
		out, err := proto.Marshal(&mp)
		if err != nil {
			tb.Fatal(err)
		}
		path := filepath.Join(tb.TempDir(), filepath.Base(fixture))
		if err := os.WriteFile(path, out, 0o644); err != nil {
			tb.Fatal(err)
		}
		return path
	}
	tb.Fatalf("%s has no weight %q", fixture, weight)
	return ""
}
