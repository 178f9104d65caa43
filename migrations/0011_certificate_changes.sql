-- Every change to (or removal of) a certificate row is announced on the channel `certdesk_certificate_changed`, the
-- certificate id as the payload. Each `serve` process keeps rendered public certificate answers in
-- memory (src/http/public-certificate-cache.ts) and LISTENs on this channel to drop them, so a
-- revocation made by any instance, the CLI or plain SQL reaches every instance's cache.
-- NOTIFY is transactional: it is delivered when (and only if) the change commits. Inserts are not
-- announced: unknown ids are never cached (a new certificate is read on its first request).
-- Same file on PGlite and PostgreSQL (PGlite delivers nothing: no session listens there).
CREATE FUNCTION certificate_changed_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    PERFORM pg_notify('certdesk_certificate_changed', OLD.certificate_id::text);
    RETURN OLD;
  END IF;
  PERFORM pg_notify('certdesk_certificate_changed', NEW.certificate_id::text);
  RETURN NEW;
END;
$$;

CREATE TRIGGER certificates_changed AFTER UPDATE OR DELETE ON certificates
  FOR EACH ROW EXECUTE FUNCTION certificate_changed_notify();
