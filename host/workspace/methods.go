package workspace

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"

	"github.com/gnosis/gnosis/host/method"
	"github.com/gnosis/gnosis/internal/budget"
	"github.com/gnosis/gnosis/runtime/wire"
)

// Methods returns the workspace.* protocol methods served from w (see
// docs/host-methods.md).
func (w *Workspace) Methods() method.Table {
	return method.Table{
		"workspace.info":   w.infoMethod,
		"workspace.list":   w.listMethod,
		"workspace.read":   w.readMethod,
		"workspace.create": w.createMethod,
		"workspace.append": w.appendMethod,
		"workspace.commit": w.commitMethod,
		"workspace.abort":  w.abortMethod,
	}
}

type infoReply struct {
	Configured       bool   `json:"configured"`
	Dir              string `json:"dir,omitempty"`
	FreeBytes        *int64 `json:"freeBytes,omitempty"`
	MaxUploadBytes   int64  `json:"maxUploadBytes"`
	MaxDownloadBytes int64  `json:"maxDownloadBytes"`
	Error            string `json:"error,omitempty"`
}

func (w *Workspace) infoMethod(context.Context, json.RawMessage, json.RawMessage, func(any) error) (any, error) {
	r := infoReply{Dir: w.dir, MaxUploadBytes: w.limits.upload, MaxDownloadBytes: w.limits.download}
	if err := w.ready(); err != nil {
		var e *wire.Error
		if errors.As(err, &e) {
			r.Error = e.Message
		}
		return r, nil
	}
	r.Configured = true
	if free, ok := freeBytes(w.dir); ok {
		r.FreeBytes = &free
	}
	return r, nil
}

func (w *Workspace) listMethod(context.Context, json.RawMessage, json.RawMessage, func(any) error) (any, error) {
	return w.List()
}

func (w *Workspace) readMethod(ctx context.Context, _, params json.RawMessage, _ func(any) error) (any, error) {
	var p struct {
		Path   string `json:"path"`
		Offset int64  `json:"offset"`
		Length int64  `json:"length"`
	}
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	// The reply is the piece in base64: its bytes are counted in the host's
	// in-flight budget before the piece is read, so many reads at once wait
	// their turn rather than hold all their pieces together.
	n := w.limits.read
	if p.Length > 0 && p.Length < n {
		n = p.Length
	}
	if err := budget.Reserve(ctx, int64(base64.StdEncoding.EncodedLen(int(n)))+int64(len(p.Path))+256); err != nil {
		return nil, err
	}
	piece, err := w.Read(p.Path, p.Offset, p.Length)
	if err != nil {
		return nil, err
	}
	return struct {
		Path   string `json:"path"`
		Offset int64  `json:"offset"`
		Data   string `json:"data"`
		Size   int64  `json:"size"`
		EOF    bool   `json:"eof"`
		MIME   string `json:"mime"`
	}{p.Path, p.Offset, base64.StdEncoding.EncodeToString(piece.Data), piece.Size, piece.EOF, piece.MIME}, nil
}

func (w *Workspace) createMethod(_ context.Context, _, params json.RawMessage, _ func(any) error) (any, error) {
	var p struct {
		Name     string `json:"name"`
		URL      string `json:"url"`
		Referrer string `json:"referrer"`
	}
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	h, err := w.CreateFrom(p.Name, Source{URL: p.URL, Referrer: p.Referrer})
	if err != nil {
		return nil, err
	}
	return struct {
		Handle string `json:"handle"`
		Name   string `json:"name"`
	}{h, p.Name}, nil
}

func (w *Workspace) appendMethod(_ context.Context, _, params json.RawMessage, _ func(any) error) (any, error) {
	var p struct {
		Handle string `json:"handle"`
		Data   string `json:"data"`
	}
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	data, err := base64.StdEncoding.DecodeString(p.Data)
	if err != nil {
		return nil, wire.Errorf(wire.CodeInvalidRequest, "data is not standard base64")
	}
	total, err := w.Append(p.Handle, data)
	if err != nil {
		return nil, err
	}
	return struct {
		Written int64 `json:"written"`
	}{total}, nil
}

func (w *Workspace) commitMethod(_ context.Context, _, params json.RawMessage, _ func(any) error) (any, error) {
	var p struct {
		Handle string `json:"handle"`
	}
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	name, size, err := w.Commit(p.Handle)
	if err != nil {
		return nil, err
	}
	return struct {
		Path string `json:"path"`
		Size int64  `json:"size"`
	}{name, size}, nil
}

func (w *Workspace) abortMethod(_ context.Context, _, params json.RawMessage, _ func(any) error) (any, error) {
	var p struct {
		Handle string `json:"handle"`
	}
	if err := decode(params, &p); err != nil {
		return nil, err
	}
	return struct{}{}, w.Abort(p.Handle)
}

// decode reads params strictly: unknown fields and wrong types are
// INVALID_REQUEST, so a typo never silently means "default".
func decode(params json.RawMessage, v any) error {
	if len(params) == 0 {
		params = json.RawMessage("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(params))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return &wire.Error{Code: wire.CodeInvalidRequest, Message: "params do not match the method", Err: err}
	}
	return nil
}
