FROM python:3.13-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 UV_PROJECT_ENVIRONMENT=/venv
RUN pip install --no-cache-dir uv
WORKDIR /app
COPY pyproject.toml uv.lock ./
RUN uv sync --frozen --no-dev --no-install-project
COPY . .
ENV PATH="/venv/bin:$PATH"
RUN SECRET_KEY=collectstatic-only-never-served-0123456789abcdef python manage.py collectstatic --no-input -v 0
EXPOSE 8000
CMD ["sh", "-c", "python manage.py migrate --no-input && python manage.py load_tables && uvicorn config.asgi:application --host 0.0.0.0 --port 8000 --proxy-headers"]
