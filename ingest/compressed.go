package ingest

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// Logs arrive compressed as they were rotated and shipped (gzip by logrotate, Fluent Bit and
// the clouds' exports; zstd by newer shippers), under names that do not always say so (a
// blob's ".json" that holds gzip, a ".log.1"). So a compressed file is known by its content:
// gzip's and zstd's magic bytes, never its name. klauspost/compress reads both in pure Go
// (no cgo to build), faster than the standard library's gzip; its gzip reader, like the
// standard one, reads concatenated members (what `cat a.gz b.gz` and appending shippers
// write) as one stream.

var (
	gzipMagic = []byte{0x1f, 0x8b}
	zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}
)

// Compression names how a file's bytes are compressed, from its first bytes: "gzip", "zstd",
// or "" for none.
func Compression(prefix []byte) string {
	switch {
	case bytes.HasPrefix(prefix, gzipMagic):
		return "gzip"
	case bytes.HasPrefix(prefix, zstdMagic):
		return "zstd"
	}
	return ""
}

// OpenFile opens path for reading its content: decompressed when its first bytes say gzip or
// zstd, as it is otherwise. Every reader of a trace opens its file through it, so that any
// format may come compressed. Errors name the file.
func OpenFile(path string) (io.ReadCloser, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	rc, err := Decompress(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return rc, nil
}

// Decompress reads src's content: decompressed when its first bytes say gzip or zstd. Closing
// the result closes src when src is an io.Closer.
func Decompress(src io.Reader) (io.ReadCloser, error) {
	br := bufio.NewReaderSize(src, 64<<10)
	prefix, err := br.Peek(len(zstdMagic))
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	c := &decompressed{src: src}
	switch Compression(prefix) {
	case "gzip":
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("gzip: %w", err)
		}
		c.r, c.closeR = zr, zr.Close
	case "zstd":
		// One decoding goroutine: a merge holds many files open at once, and a file is read
		// by one consumer anyway.
		zr, err := zstd.NewReader(br, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true))
		if err != nil {
			return nil, fmt.Errorf("zstd: %w", err)
		}
		c.r, c.closeR = zr, func() error { zr.Close(); return nil }
	default:
		c.r = br
	}
	return c, nil
}

// decompressed is a file's content, its decoder (if any) and the file to close under it.
type decompressed struct {
	r      io.Reader
	src    io.Reader
	closeR func() error
}

func (d *decompressed) Read(p []byte) (int, error) {
	n, err := d.r.Read(p)
	if err != nil && !errors.Is(err, io.EOF) {
		err = fmt.Errorf("decompressing: %w", err)
	}
	return n, err
}

func (d *decompressed) Close() error {
	var err error
	if d.closeR != nil {
		err = d.closeR()
	}
	if c, ok := d.src.(io.Closer); ok {
		if cerr := c.Close(); err == nil {
			err = cerr
		}
	}
	return err
}

// notCompressed refuses a compressed Parquet file: Parquet is read by seeking to its footer,
// which a compressed stream cannot do, and compresses its own pages anyway.
func notCompressed(f *os.File, path string) error {
	var prefix [4]byte
	n, _ := f.ReadAt(prefix[:], 0)
	if c := Compression(prefix[:n]); c != "" {
		return fmt.Errorf("%s: a %s-compressed Parquet file: decompress it first (Parquet compresses its own pages)", path, c)
	}
	return nil
}
