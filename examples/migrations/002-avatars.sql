-- Each user's avatar: its bytes, its media type, and a version drawn from one sequence, which is its
-- ETag: a new avatar, even one sent after a removal, never takes a tag that an older one had.
create sequence avatar_versions;

create table avatars (
  user_id integer primary key references users (id) on delete cascade,
  type text not null,
  bytes bytea not null,
  version integer not null default nextval('avatar_versions')
);
