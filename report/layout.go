package report

import (
	"bytes"
	"encoding/json"
)

// JSON is v as the outputs write it: indented JSON with each object member and each array of objects or
// arrays on its own line, but an array of numbers or strings on one line, so that vectors
// and paths stay readable and small.
func JSON(v any) ([]byte, error) {
	src, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	depth := 0
	newline := func() {
		out.WriteByte('\n')
		for range depth {
			out.WriteByte(' ')
		}
	}
	for i := 0; i < len(src); i++ {
		switch c := src[i]; c {
		case '"':
			j := stringEnd(src, i)
			out.Write(src[i : j+1])
			i = j
		case '{', '[':
			if end, ok := flatArray(src, i); ok {
				for k := i; k <= end; k++ {
					if src[k] == '"' {
						j := stringEnd(src, k)
						out.Write(src[k : j+1])
						k = j
						continue
					}
					out.WriteByte(src[k])
					if src[k] == ',' {
						out.WriteByte(' ')
					}
				}
				i = end
				continue
			}
			if i+1 < len(src) && (src[i+1] == '}' || src[i+1] == ']') {
				out.Write(src[i : i+2])
				i++
				continue
			}
			out.WriteByte(c)
			depth++
			newline()
		case '}', ']':
			depth--
			newline()
			out.WriteByte(c)
		case ',':
			out.WriteByte(c)
			newline()
		case ':':
			out.WriteString(": ")
		default:
			out.WriteByte(c)
		}
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

// stringEnd is the index of the quote closing the JSON string that starts at src[i].
func stringEnd(src []byte, i int) int {
	for j := i + 1; j < len(src); j++ {
		switch src[j] {
		case '\\':
			j++
		case '"':
			return j
		}
	}
	return len(src) - 1
}

// flatArray reports whether src[i] opens an array holding no object or array, and where
// it ends.
func flatArray(src []byte, i int) (int, bool) {
	if src[i] != '[' {
		return 0, false
	}
	for j := i + 1; j < len(src); j++ {
		switch src[j] {
		case '"':
			j = stringEnd(src, j)
		case '[', '{':
			return 0, false
		case ']':
			return j, true
		}
	}
	return 0, false
}
