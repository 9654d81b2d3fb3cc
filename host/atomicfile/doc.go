// Package atomicfile writes small files the host owns (the native-messaging
// manifests, the installation record, the host's configuration and its copied
// executable) so that readers only ever see the old contents or the new ones.
//
// There is one writer so that every such file gets the same treatment: the
// bytes go to a new temporary file in the destination folder, are synced, and
// are renamed over the name; the result is read back and compared. The
// temporary file is created with the requested permissions and no later
// chmod, so the operating system applies the user's umask and a file is
// never made more accessible than the user's settings allow.
package atomicfile
