package wire

import (
	"context"
	"errors"
	"fmt"
)

// Code is a stable, documented error code carried in protocol replies.
// Codes are appended, never renamed: the extension and users' scripts match on them.
type Code string

// The error codes, in the order of docs/protocol.md's table.
const (
	CodeInvalidRequest      Code = "INVALID_REQUEST"
	CodeInvalidArguments    Code = "INVALID_ARGUMENTS"
	CodeCapabilityNotFound  Code = "CAPABILITY_NOT_FOUND"
	CodeProviderNotFound    Code = "PROVIDER_NOT_FOUND"
	CodeExecutionError      Code = "EXECUTION_ERROR"
	CodeUnknownMethod       Code = "UNKNOWN_METHOD"
	CodeProviderUnavailable Code = "PROVIDER_UNAVAILABLE"
	CodeTimeout             Code = "TIMEOUT"
	CodeCancelled           Code = "CANCELLED"
	CodeMessageTooLarge     Code = "MESSAGE_TOO_LARGE"
	CodeForbidden           Code = "FORBIDDEN"
	CodeNotConfigured       Code = "NOT_CONFIGURED"
	CodeFileExists          Code = "FILE_EXISTS"
	CodeFileNotFound        Code = "FILE_NOT_FOUND"
	CodeFileTooLarge        Code = "FILE_TOO_LARGE"
	CodeOverloaded          Code = "OVERLOADED"
	CodeTooCostly           Code = "TOO_COSTLY"
)

// Error is a failure that carries its protocol code. Front ends turn it into a
// reply in one place; any other error becomes EXECUTION_ERROR.
type Error struct {
	Code    Code
	Message string
	// Details is optional structured context (validation errors, the failing tool result).
	Details any
	// Err is the underlying cause, if any; it is not sent on the wire.
	Err error
}

func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%s: %s: %v", e.Code, e.Message, e.Err)
	}
	return fmt.Sprintf("%s: %s", e.Code, e.Message)
}

func (e *Error) Unwrap() error { return e.Err }

// Is lets errors.Is match any *Error with the same code, so callers can write
// errors.Is(err, &wire.Error{Code: wire.CodeTimeout}).
func (e *Error) Is(target error) bool {
	var t *Error
	if errors.As(target, &t) {
		return t.Code == e.Code && t.Message == ""
	}
	return false
}

// Errorf builds an *Error with a formatted message.
func Errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// CodeOf returns the protocol code of err: its *Error code if it has one,
// CANCELLED/TIMEOUT for context errors, EXECUTION_ERROR otherwise.
func CodeOf(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	switch {
	case errors.Is(err, context.Canceled):
		return CodeCancelled
	case errors.Is(err, context.DeadlineExceeded):
		return CodeTimeout
	}
	return CodeExecutionError
}
