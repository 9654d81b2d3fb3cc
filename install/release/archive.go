package main

import (
	"archive/zip"
	"io/fs"
	"os"
	"time"
)

// archive is a zip file written whole or not at all: entries go to
// <path>.tmp, which commit renames into place and discard removes.
type archive struct {
	path string
	f    *os.File
	zw   *zip.Writer
}

func createArchive(path string) (*archive, error) {
	f, err := os.Create(path + ".tmp")
	if err != nil {
		return nil, err
	}
	return &archive{path: path, f: f, zw: zip.NewWriter(f)}, nil
}

// add writes one entry, compressed, with mode.
func (a *archive) add(name string, data []byte, mode fs.FileMode) error {
	h := &zip.FileHeader{Name: name, Method: zip.Deflate, Modified: time.Now()}
	h.SetMode(mode)
	w, err := a.zw.CreateHeader(h)
	if err != nil {
		return err
	}
	_, err = w.Write(data)
	return err
}

// addFile writes the file src as the entry name.
func (a *archive) addFile(src, name string, mode fs.FileMode) error {
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	return a.add(name, data, mode)
}

// commit finishes the archive and puts it in place.
func (a *archive) commit() error {
	if err := a.zw.Close(); err != nil {
		return err
	}
	if err := a.f.Close(); err != nil {
		return err
	}
	return os.Rename(a.path+".tmp", a.path)
}

// discard removes the temporary file; after commit it does nothing.
func (a *archive) discard() {
	a.f.Close()
	os.Remove(a.path + ".tmp")
}
