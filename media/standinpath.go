package media

import (
	"fmt"
	"strings"
)

// standinpath.go names a stand-in image by what it is built from, so that a server can build
// it again from its URL path alone: an image logged as a URL is sent as a URL (--media-listen)
// and the engine fetches it, as it fetched the original.

// StandInPath is the URL path of the stand-in keyed key, width×height, in format mime.
func StandInPath(key uint64, width, height int, mime string) string {
	return fmt.Sprintf("/media/%016x-%dx%d.%s", key, width, height, extOf(NormalizeMIME(mime)))
}

// ParseStandInPath reads a StandInPath back; an error for any other path.
func ParseStandInPath(path string) (key uint64, width, height int, mime string, err error) {
	name, ok := strings.CutPrefix(path, "/media/")
	dot := strings.LastIndexByte(name, '.')
	if !ok || dot < 0 {
		return 0, 0, 0, "", fmt.Errorf("%q is not a stand-in image's path", path)
	}
	switch name[dot+1:] {
	case "png":
		mime = PNG
	case "jpg":
		mime = JPEG
	case "gif":
		mime = GIF
	default:
		return 0, 0, 0, "", fmt.Errorf("%q: not an image format replay builds", path)
	}
	var rest string
	if n, e := fmt.Sscanf(strings.Replace(name[:dot], "-", " ", 1), "%x %s", &key, &rest); n != 2 || e != nil {
		return 0, 0, 0, "", fmt.Errorf("%q is not a stand-in image's path", path)
	}
	if n, e := fmt.Sscanf(rest, "%dx%d", &width, &height); n != 2 || e != nil || fmt.Sprintf("%dx%d", width, height) != rest {
		return 0, 0, 0, "", fmt.Errorf("%q is not a stand-in image's path", path)
	}
	if width <= 0 || height <= 0 || width > MaxSide || height > MaxSide {
		return 0, 0, 0, "", fmt.Errorf("%q: size %dx%d out of range", path, width, height)
	}
	return key, width, height, mime, nil
}

// extOf is the file extension of a format Build writes (WebP is built as PNG).
func extOf(mime string) string {
	switch mime {
	case JPEG:
		return "jpg"
	case GIF:
		return "gif"
	}
	return "png"
}
