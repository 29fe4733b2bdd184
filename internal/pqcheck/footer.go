package pqcheck

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// Footer validates the Parquet footer's Thrift encoding before parquet-go decodes it.
// parquet-go allocates lists and strings at the sizes the footer claims, so a damaged footer
// (a byte flipped, a file cut short and padded) can ask for gigabytes and kill the process
// instead of returning an error. Every list, map or string is checked to fit in the bytes
// that remain; nesting is bounded.
func Footer(in io.ReaderAt, size int64) error {
	var tail [8]byte
	if _, err := in.ReadAt(tail[:], size-8); err != nil {
		return fmt.Errorf("reading footer: %w", err)
	}
	if string(tail[4:]) != "PAR1" {
		return fmt.Errorf("no Parquet footer (last bytes %q, want \"PAR1\")", tail[4:])
	}
	n := int64(binary.LittleEndian.Uint32(tail[:4]))
	if n == 0 || n > size-12 {
		return fmt.Errorf("footer length %d does not fit a %d-byte file", n, size)
	}
	footer := make([]byte, n)
	if _, err := in.ReadAt(footer, size-8-n); err != nil {
		return fmt.Errorf("reading footer: %w", err)
	}
	t := thriftCheck{b: footer}
	if err := t.structure(0); err != nil {
		return fmt.Errorf("footer metadata at byte %d: %w", t.i, err)
	}
	return nil
}

// thriftCheck walks Thrift compact protocol without building values.
type thriftCheck struct {
	b []byte
	i int
}

const maxThriftDepth = 32

var errThriftShort = errors.New("truncated")

func (t *thriftCheck) byte1() (byte, error) {
	if t.i >= len(t.b) {
		return 0, errThriftShort
	}
	c := t.b[t.i]
	t.i++
	return c, nil
}

func (t *thriftCheck) varint() (uint64, error) {
	v, n := binary.Uvarint(t.b[t.i:])
	if n <= 0 {
		return 0, errors.New("bad varint")
	}
	t.i += n
	return v, nil
}

func (t *thriftCheck) remaining() uint64 { return uint64(len(t.b) - t.i) }

func (t *thriftCheck) structure(depth int) error {
	if depth > maxThriftDepth {
		return errors.New("nested too deep")
	}
	for {
		h, err := t.byte1()
		if err != nil {
			return err
		}
		typ := h & 0x0f
		if typ == 0 { // stop
			return nil
		}
		if h>>4 == 0 { // long form: the field id follows as a zigzag varint
			if _, err := t.varint(); err != nil {
				return err
			}
		}
		if err := t.value(typ, depth); err != nil {
			return err
		}
	}
}

// value skips one value of compact type typ (field context: booleans carry no byte).
func (t *thriftCheck) value(typ byte, depth int) error {
	switch typ {
	case 1, 2: // boolean true/false, encoded in the type
		return nil
	default:
		return t.element(typ, depth)
	}
}

// element skips one value of compact type typ as it appears in a container.
func (t *thriftCheck) element(typ byte, depth int) error {
	switch typ {
	case 1, 2, 3: // bool (one byte in containers), byte
		_, err := t.byte1()
		return err
	case 4, 5, 6: // i16, i32, i64
		_, err := t.varint()
		return err
	case 7: // double
		if t.remaining() < 8 {
			return errThriftShort
		}
		t.i += 8
		return nil
	case 8: // binary
		n, err := t.varint()
		if err != nil {
			return err
		}
		if n > t.remaining() {
			return fmt.Errorf("string of %d bytes with %d left", n, t.remaining())
		}
		t.i += int(n)
		return nil
	case 9, 10: // list, set
		h, err := t.byte1()
		if err != nil {
			return err
		}
		n := uint64(h >> 4)
		if n == 15 {
			if n, err = t.varint(); err != nil {
				return err
			}
		}
		if n > t.remaining() {
			return fmt.Errorf("list of %d items with %d bytes left", n, t.remaining())
		}
		et := h & 0x0f
		for k := uint64(0); k < n; k++ {
			if err := t.element(et, depth+1); err != nil {
				return err
			}
		}
		return nil
	case 11: // map
		n, err := t.varint()
		if err != nil {
			return err
		}
		if n == 0 {
			return nil
		}
		if 2*n > t.remaining() {
			return fmt.Errorf("map of %d entries with %d bytes left", n, t.remaining())
		}
		kv, err := t.byte1()
		if err != nil {
			return err
		}
		for k := uint64(0); k < n; k++ {
			if err := t.element(kv>>4, depth+1); err != nil {
				return err
			}
			if err := t.element(kv&0x0f, depth+1); err != nil {
				return err
			}
		}
		return nil
	case 12: // struct
		return t.structure(depth + 1)
	}
	return fmt.Errorf("unknown Thrift type %d", typ)
}
