"""boto3 client construction (endpoint, keys, region, ROLE_ARN) and S3 error translation.

boto3/botocore are imported inside the functions so that `hf://` runs do not need them.
"""

from __future__ import annotations

from typing import Any

from .config import InitializerSettings
from .errors import AccessDeniedError, InitializerError, SourceNotFoundError, TransferError

ROLE_SESSION_NAME = "kubeflow-trainer-initializer"

# botocore's own retries (throttling, 5xx, connection errors before the body starts).
# Mid-stream failures are retried by s3_transfer, which resumes from the last byte written.
BOTO_RETRY_ATTEMPTS = 8

_ACCESS_DENIED_CODES = frozenset(
    {
        "AccessDenied",
        "AllAccessDisabled",
        "AuthorizationHeaderMalformed",
        "ExpiredToken",
        "InvalidAccessKeyId",
        "InvalidClientTokenId",
        "InvalidToken",
        "SignatureDoesNotMatch",
        "TokenRefreshRequired",
        "401",
        "403",
    }
)
_NOT_FOUND_CODES = frozenset({"NoSuchBucket", "NoSuchKey", "NotFound", "404"})
_CREDENTIALS_HINT = "check ACCESS_KEY_ID / SECRET_ACCESS_KEY / ROLE_ARN"


def effective_region(settings: InitializerSettings) -> str | None:
    """REGION, except upstream's default `auto`, which only S3-compatible endpoints understand."""
    if settings.region == "auto" and not settings.endpoint:
        return None
    return settings.region


def build_s3_client(settings: InitializerSettings, max_connections: int) -> tuple[Any, list[str]]:
    """Return the S3 client and any temporary secrets it obtained (for redaction)."""
    import boto3
    from botocore.config import Config

    region = effective_region(settings)
    session = boto3.Session(
        aws_access_key_id=settings.access_key_id,
        aws_secret_access_key=settings.secret_access_key,
        aws_session_token=settings.session_token,
        region_name=region,
    )
    temporary_secrets: list[str] = []
    if settings.role_arn:
        session = assume_role_session(session, settings, region, temporary_secrets)
    config = Config(
        region_name=region or session.region_name or "us-east-1",
        retries={"max_attempts": BOTO_RETRY_ATTEMPTS, "mode": "standard"},
        max_pool_connections=max_connections,
        connect_timeout=10,
        read_timeout=60,
        # Custom endpoints (MinIO, moto, Ceph) rarely have wildcard DNS for bucket subdomains.
        s3={"addressing_style": "path"} if settings.endpoint else None,
        user_agent_extra="pulumi-kubeflow-trainer-initializer",
    )
    client = session.client("s3", endpoint_url=settings.endpoint, config=config)
    return client, temporary_secrets


def assume_role_session(base: Any, settings: InitializerSettings, region: str | None, secrets: list[str]) -> Any:
    """A session whose credentials come from STS AssumeRole and refresh before they expire.

    STS is reached at STS_ENDPOINT when set (MinIO and moto serve STS on their S3 endpoint),
    otherwise at AWS's regional STS endpoint, as upstream's OpenDAL initializer does.
    """
    import boto3
    from botocore.credentials import RefreshableCredentials
    from botocore.session import get_session

    sts = base.client("sts", endpoint_url=settings.sts_endpoint, region_name=region or "us-east-1")

    def fetch_credentials() -> dict[str, str]:
        try:
            response = sts.assume_role(RoleArn=settings.role_arn, RoleSessionName=ROLE_SESSION_NAME)
        except Exception as error:  # noqa: BLE001 - translated into a one-line error
            raise translate_s3_error(error, f"ROLE_ARN {settings.role_arn}") from None
        credentials = response["Credentials"]
        secrets.extend([credentials["AccessKeyId"], credentials["SecretAccessKey"], credentials["SessionToken"]])
        return {
            "access_key": credentials["AccessKeyId"],
            "secret_key": credentials["SecretAccessKey"],
            "token": credentials["SessionToken"],
            "expiry_time": credentials["Expiration"].isoformat(),
        }

    refreshable = RefreshableCredentials.create_from_metadata(
        metadata=fetch_credentials(), refresh_using=fetch_credentials, method="sts-assume-role"
    )
    botocore_session = get_session()
    # The documented way to hand refreshable credentials to a session has no public setter.
    botocore_session._credentials = refreshable
    if region:
        botocore_session.set_config_variable("region", region)
    return boto3.Session(botocore_session=botocore_session)


def error_code(error: BaseException) -> str | None:
    """The S3 error code (or HTTP status) of a botocore ClientError, else None."""
    response = getattr(error, "response", None)
    if not isinstance(response, dict):
        return None
    code = response.get("Error", {}).get("Code")
    if code:
        return str(code)
    status = response.get("ResponseMetadata", {}).get("HTTPStatusCode")
    return str(status) if status else None


def translate_s3_error(error: BaseException, what: str) -> InitializerError:
    """Turn a botocore exception into an InitializerError with a short, secret-free message."""
    if isinstance(error, InitializerError):
        return error
    from botocore import exceptions as botocore_errors

    if isinstance(error, botocore_errors.ClientError):
        code = error_code(error) or "unknown"
        if code in _ACCESS_DENIED_CODES:
            return AccessDeniedError(f"access denied to {what} ({code}): {_CREDENTIALS_HINT}")
        if code in _NOT_FOUND_CODES:
            reason = "bucket does not exist" if code == "NoSuchBucket" else "not found"
            return SourceNotFoundError(f"{what}: {reason} ({code})")
        message = error.response.get("Error", {}).get("Message", "")
        return TransferError(f"{what}: S3 error {code}: {message}".rstrip(": "))
    if isinstance(error, (botocore_errors.NoCredentialsError, botocore_errors.PartialCredentialsError)):
        return AccessDeniedError(f"no usable S3 credentials for {what}: set ACCESS_KEY_ID and SECRET_ACCESS_KEY, or ROLE_ARN")
    if isinstance(error, botocore_errors.EndpointConnectionError):
        return TransferError(f"cannot reach the S3 endpoint for {what}: {error}")
    if isinstance(error, botocore_errors.BotoCoreError):
        return TransferError(f"{what}: {type(error).__name__}: {error}")
    return TransferError(f"{what}: {type(error).__name__}: {error}")
